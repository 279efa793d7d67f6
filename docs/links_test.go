package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// link matches a Markdown inline link or image, [text](target), capturing
// the target up to a space (a title) or the closing parenthesis.
var link = regexp.MustCompile(`\]\(([^)\s]+)[^)]*\)`)

// codeSpan matches inline code, where h5.Read[T](ctx, …) is no link.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

// prose is a page without its fenced code blocks and inline code: the
// text where Markdown makes links.
func prose(page string) string {
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(page) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(codeSpan.ReplaceAllString(line, ""))
		}
	}
	return b.String()
}

// pages are the user documentation whose links are checked: README.md,
// the other modules' READMEs and docs/*.md, relative to this directory.
func pages(t *testing.T) []string {
	t.Helper()
	md, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md", "../bench/README.md", "../beam/README.md", "../examples/README.md"}, md...)
}

// TestRelativeLinks fails on a relative link of a page whose file does not
// exist, and on a link that leaves the
// repository: the guide is read on GitHub and in a clone, where neither
// resolves.
func TestRelativeLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, page := range pages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(prose(string(b)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, fragment, _ := strings.Cut(target, "#")
			p, err := filepath.Abs(filepath.Join(filepath.Dir(page), filepath.FromSlash(target)))
			if err != nil {
				t.Fatal(err)
			}
			n++
			if rel, err := filepath.Rel(root, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				t.Errorf("%s: link %q leaves the repository", page, m[1])
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s: link %q names no file: %v", page, m[1], err)
				continue
			}
			if fragment != "" && strings.HasSuffix(p, ".md") && !hasHeading(t, p, fragment) {
				t.Errorf("%s: link %q names no heading of %s", page, m[1], target)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d relative links found in %d pages: the link pattern no longer matches the pages", n, len(pages(t)))
	}
}

// hasHeading reports whether the Markdown file at path has a heading (outside
// fenced code) whose anchor, as GitHub makes it, is fragment: lower case, spaces as hyphens,
// punctuation other than hyphens and underscores dropped.
func hasHeading(t *testing.T, path, fragment string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fenced := false
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fenced || !ok || !strings.HasPrefix(line, "#") {
			continue
		}
		slug := strings.Map(func(r rune) rune {
			switch {
			case r == ' ':
				return '-'
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				return unicode.ToLower(r)
			}
			return -1
		}, strings.TrimSpace(title))
		if slug == fragment {
			return true
		}
	}
	return false
}

// TestNoSharedPaths fails on a mention of ../shared, the project's
// workspace outside the repository, which a reader of the guide does not
// have.
func TestNoSharedPaths(t *testing.T) {
	for _, page := range pages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "../shared") || strings.Contains(string(b), "/work/shared") {
			t.Errorf("%s names ../shared, which is outside the repository", page)
		}
	}
}
