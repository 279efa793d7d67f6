package source

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
)

var (
	// ErrRange reports a negative offset or length.
	ErrRange = errors.New("source: invalid range")
	// ErrIsDir reports a directory opened as a file.
	ErrIsDir = errors.New("source: is a directory")
	// ErrScheme reports a name whose URL scheme no source reads.
	ErrScheme = errors.New("source: unsupported URL scheme")
	// ErrClosed reports use of a closed Pool.
	ErrClosed = errors.New("source: closed")
	// ErrProtocol reports an HTTP response that breaks the range protocol:
	// a wrong Content-Range, a body of the wrong length, a 200 to a range
	// request for a file too large to take whole.
	ErrProtocol = errors.New("source: bad range response")
	// ErrWhole reports a server that ignored Range and sent an object
	// larger than the WithMaxWhole limit (or of unknown size). It wraps
	// ErrProtocol.
	ErrWhole = fmt.Errorf("%w: server ignored Range and sent the whole object, over the WithMaxWhole limit", ErrProtocol)
	// ErrBlocked reports a request that the source's Policy does not allow.
	ErrBlocked = errors.New("source: blocked by policy")
)

// HTTPError reports a request answered with a status that is not retried or
// that was still failing when retries ran out.
type HTTPError struct {
	URL    string // the URL as given to the source, password redacted (never the resolved one)
	Status int
}

// Error names the URL and the status.
func (e *HTTPError) Error() string {
	return fmt.Sprintf("source: GET %s: HTTP %d", e.URL, e.Status)
}

// IsNotExist reports whether err says that a file does not exist: a local
// file not found or an HTTP 404. (A file outside the root sources are
// confined to is another error, ErrOutside.)
func IsNotExist(err error) bool {
	var he *HTTPError
	return errors.Is(err, fs.ErrNotExist) || errors.As(err, &he) && he.Status == http.StatusNotFound
}
