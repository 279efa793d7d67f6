package h5

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
)

// missing is the error for seg, a name that g does not have, met while
// resolving path: it names the group and the members closest to seg (did
// you mean "data"?), or, for a small group with none close, its members.
func (g *Group) missing(ctx context.Context, path, seg string) error {
	hint := ""
	if g.completed(ctx) == nil { // a group read lazily lists its members now
		hint = suggest(seg, g.Members())
	}
	if strings.TrimPrefix(path, "/") == strings.TrimPrefix(joinPath(g.path, seg), "/") {
		// The path is the missing member: named once.
		return fmt.Errorf("%w: %q in group %s%s", ErrNotFound, path, g.path, hint)
	}
	return fmt.Errorf("%w: %q: no member %q in %s%s", ErrNotFound, path, seg, g.path, hint)
}

// maxListed is the most members a hint lists when none is close.
const maxListed = 8

// suggest gives " (did you mean "x"?)" for the names closest to name, at
// most three; " (members: …)" when none is close and names are few; "" for
// none.
func suggest(name string, names []string) string {
	type scored struct {
		name string
		d    int
	}
	var close []scored
	for _, n := range names {
		if d := distance(strings.ToLower(name), strings.ToLower(n)); d <= max(2, len(name)/3) || prefixOf(name, n) {
			close = append(close, scored{n, d})
		}
	}
	if len(close) == 0 {
		if len(names) == 0 || len(names) > maxListed {
			return ""
		}
		return " (members: " + quoteAll(names, ", ") + ")"
	}
	slices.SortStableFunc(close, func(a, b scored) int { return cmp.Compare(a.d, b.d) })
	var best []string
	for _, s := range close[:min(3, len(close))] {
		best = append(best, s.name)
	}
	return " (did you mean " + quoteAll(best, " or ") + "?)"
}

// prefixOf reports whether one of a and b begins the other, case aside,
// the shorter of at least three letters.
func prefixOf(a, b string) bool {
	a, b = strings.ToLower(a), strings.ToLower(b)
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 3 && strings.HasPrefix(b, a)
}

func quoteAll(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, sep)
}

// distance is the Levenshtein distance between a and b, in bytes; names
// longer than 64 bytes are not compared (their distance is large).
func distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
