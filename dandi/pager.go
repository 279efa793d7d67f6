package dandi

import (
	"fmt"
	"strings"
)

// pager follows the next links of a paginated API listing and refuses
// one that would not end: a page that comes again (a page pointing to
// itself, two pointing to each other), more results or pages than the
// count the first page declares, a page with no results that points to
// another, or a next link off the instance's API.
type pager struct {
	first   string // the first page's URL
	apiURL  string // the instance's API URL
	visited map[string]bool
	count   int // declared by the first page; -1 before it
	results int
	pages   int
}

// follow checks the page at u, which declared count and held n results
// and whose next link is next, and returns the next page's URL, "" at the
// end.
func (p *pager) follow(u string, count, n int, next *string) (string, error) {
	if p.visited == nil {
		p.visited, p.count = map[string]bool{}, count
	}
	p.visited[u] = true
	p.pages++
	p.results += n
	switch {
	case p.results > p.count:
		return "", fmt.Errorf("%w: the listing gives more than the %d results it declares (page %d)", ErrResponse, p.count, p.pages)
	case next == nil || *next == "":
		return "", nil
	case n == 0:
		return "", fmt.Errorf("%w: listing page %d is empty yet points to another", ErrResponse, p.pages)
	case !strings.HasPrefix(*next, p.apiURL+"/"):
		return "", fmt.Errorf("%w: next page %q is not on the instance's API", ErrResponse, *next)
	case p.visited[*next]:
		return "", fmt.Errorf("%w: the listing loops: page %d points back to %s", ErrResponse, p.pages, *next)
	case p.pages >= p.count:
		return "", fmt.Errorf("%w: the listing has more pages than the %d results it declares", ErrResponse, p.count)
	}
	return *next, nil
}
