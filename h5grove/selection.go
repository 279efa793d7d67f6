package h5grove

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lindigo/lindi/selection"
)

// parseSelection reads h5grove's selection argument: members separated by
// commas, each an integer index or a slice start:stop or start:stop:step
// whose parts may be empty ("5", "1, 2:5", "0:10:5, 2, 3:"). As in h5grove, an
// empty start of a two-part slice is 0. It refuses more members than the
// dataset has dimensions.
func parseSelection(s string, ndim int) (selection.Selection, error) {
	members := strings.Split(s, ",")
	if len(members) > ndim {
		return nil, fmt.Errorf("%w: selection %q has too many members to slice a %dD dataset", errQuery, s, ndim)
	}
	sel := make(selection.Selection, len(members))
	for i, m := range members {
		item, err := parseMember(m)
		if err != nil {
			return nil, fmt.Errorf("%w: selection %q: %w", errQuery, s, err)
		}
		sel[i] = item
	}
	return sel, nil
}

func parseMember(m string) (selection.Item, error) {
	parts := strings.Split(m, ":")
	if len(parts) == 1 {
		i, err := parseInt(parts[0])
		if err != nil {
			return selection.Item{}, err
		}
		return selection.Index(i), nil
	}
	if len(parts) > 3 {
		return selection.Item{}, fmt.Errorf("%q is not a valid slice", m)
	}
	bounds := [3]int{selection.None, selection.None, selection.None}
	for j, p := range parts {
		if strings.TrimSpace(p) == "" {
			continue
		}
		v, err := parseInt(p)
		if err != nil {
			return selection.Item{}, err
		}
		bounds[j] = v
	}
	if len(parts) == 2 && bounds[0] == selection.None {
		bounds[0] = 0
	}
	if bounds[2] == 0 {
		return selection.Item{}, fmt.Errorf("%q: slice step cannot be zero", m)
	}
	return selection.Slice(bounds[0], bounds[1], bounds[2]), nil
}

// parseInt reads an integer as Python's int does: surrounding spaces, a
// sign, digits with single underscores between them.
func parseInt(s string) (int, error) {
	t := strings.TrimSpace(s)
	digits := strings.TrimLeft(t, "+-")
	if len(t)-len(digits) > 1 || digits == "" || strings.HasPrefix(digits, "_") || strings.HasSuffix(digits, "_") || strings.Contains(digits, "__") {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	v, err := strconv.ParseInt(strings.ReplaceAll(t, "_", ""), 10, 0)
	if err != nil || v == selection.None {
		return 0, fmt.Errorf("%q is not an integer in range", s)
	}
	return int(v), nil
}
