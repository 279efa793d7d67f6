package h5grove

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// DefaultMaxBytes is the default limit on the elements one /data or /stats
// request reads (256 MiB).
const DefaultMaxBytes = 256 << 20

// Server answers h5grove's API for the files of a Source.
type Server struct {
	src      Source
	maxBytes int64
	origin   string
	files    openFiles
}

// Option configures a Server.
type Option func(*Server) error

// WithMaxBytes sets the limit on the bytes of elements one /data or /stats
// request reads; a larger request is refused with 413 before anything is
// read. n must be positive.
func WithMaxBytes(n int64) Option {
	return func(s *Server) error {
		if n <= 0 {
			return fmt.Errorf("h5grove: max bytes %d: must be positive", n)
		}
		s.maxBytes = n
		return nil
	}
}

// WithAllowOrigin sets the Access-Control-Allow-Origin header sent with every
// answer, so that an h5web page served from another origin may call the
// server; "" sends none. The default is "*", as h5grove's example servers do.
func WithAllowOrigin(origin string) Option {
	return func(s *Server) error {
		if strings.ContainsAny(origin, "\r\n") {
			return fmt.Errorf("h5grove: allowed origin %q: holds a line break", origin)
		}
		s.origin = origin
		return nil
	}
}

// WithOpenOptions passes options to h5.Open for every file the server opens.
func WithOpenOptions(opts ...h5.Option) Option {
	return func(s *Server) error {
		s.files.opts = append(s.files.opts, opts...)
		return nil
	}
}

// New returns a Server of the files of src.
func New(src Source, opts ...Option) (*Server, error) {
	if src == nil {
		return nil, errors.New("h5grove: no source of files")
	}
	s := &Server{src: src, maxBytes: DefaultMaxBytes, origin: "*"}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Close closes the files the server holds open. Requests still running keep
// theirs until they finish.
func (s *Server) Close() error {
	s.files.close()
	return nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.origin != "" {
		w.Header().Set("Access-Control-Allow-Origin", s.origin)
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
		w.Header().Set("Access-Control-Allow-Headers", "*")
		w.Header().Set("Access-Control-Max-Age", "86400")
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", "GET, HEAD, OPTIONS")
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("method %s not allowed", r.Method))
		return
	}
	route := strings.TrimSuffix(r.URL.Path, "/")
	if route == "" {
		s.root(w, r)
		return
	}
	if strings.HasPrefix(route, "/assets/") {
		servePageAsset(w, r, strings.TrimPrefix(route, "/assets/"))
		return
	}
	var h func(context.Context, http.ResponseWriter, *request) error
	switch route {
	case "/attr":
		h = s.attr
	case "/data":
		h = s.data
	case "/meta":
		h = s.meta
	case "/paths":
		h = s.paths
	case "/stats":
		h = s.stats
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s", r.URL.Path))
		return
	}
	s.serve(w, r, h)
}

// root answers "/": "ok" for a client checking that the server is up, the
// h5web page for a browser.
func (s *Server) root(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		s.page(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprint(w, "ok")
}

// request is one API call: its query and the file it names, open.
type request struct {
	name string // the file parameter
	loc  string // what the source located it at
	f    *h5.File
	q    queryArgs
}

// serve opens the request's file and runs h on it; an error h returns
// before writing becomes an error answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, h func(context.Context, http.ResponseWriter, *request) error) {
	q := queryArgs(r.URL.Query())
	req := &request{name: q.get("file"), q: q}
	if !q.has("file") {
		writeError(w, http.StatusUnprocessableEntity, "the file query argument is required")
		return
	}
	loc, err := s.src.Locate(req.name)
	if err != nil {
		s.fail(w, req, err)
		return
	}
	req.loc = loc
	f, release, err := s.files.acquire(r.Context(), loc)
	if err != nil {
		s.fail(w, req, fmt.Errorf("%w: %q: %w", ErrNoFile, req.name, err))
		return
	}
	defer release()
	req.f = f
	if err := h(r.Context(), w, req); err != nil {
		s.fail(w, req, err)
	}
}

// fail writes err as an error answer; its message names the file as the
// request did, never where it was located.
func (s *Server) fail(w http.ResponseWriter, req *request, err error) {
	msg := err.Error()
	if req.loc != "" && req.loc != req.name {
		msg = strings.ReplaceAll(msg, req.loc, req.name)
	}
	if d, ok := s.src.(Dir); ok {
		msg = strings.ReplaceAll(msg, string(d), "")
	}
	if errors.Is(err, ErrNoFile) {
		msg = "File not found: " + msg // the phrase h5web looks for
	}
	writeError(w, statusOf(err), msg)
}

// Errors of the API beside those of the Source.
var (
	errQuery    = errors.New("h5grove: invalid query argument")
	errPath     = errors.New("h5grove: not a valid path")
	errLink     = errors.New("h5grove: cannot resolve link")
	errKind     = errors.New("h5grove: wrong kind of entity")
	errTooLarge = errors.New("h5grove: response too large")
)

func statusOf(err error) int {
	switch {
	case errors.Is(err, ErrForbidden):
		return http.StatusForbidden
	case errors.Is(err, ErrNoFile), errors.Is(err, errPath), errors.Is(err, errLink):
		return http.StatusNotFound
	case errors.Is(err, errTooLarge), errors.Is(err, h5.ErrTooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errQuery), errors.Is(err, errKind):
		return http.StatusUnprocessableEntity
	}
	return http.StatusInternalServerError
}

// writeError writes h5grove's error body, {"message": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Disposition")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]string{"message": msg})
	w.Write(b)
}

// queryArgs reads a request's query.
type queryArgs map[string][]string

func (q queryArgs) has(k string) bool { _, ok := q[k]; return ok }

func (q queryArgs) get(k string) string {
	if v := q[k]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// flag reads a boolean argument as h5grove does: anything but "false" (in
// any case) is true.
func (q queryArgs) flag(k string) bool {
	return q.has(k) && !strings.EqualFold(q.get(k), "false")
}
