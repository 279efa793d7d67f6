package h5grove

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/source"
)

// DefaultMaxBytes is the default limit on the elements one /data or /stats
// request reads (256 MiB).
const DefaultMaxBytes = 256 << 20

// Server answers h5grove's API for the files of a Source.
type Server struct {
	src      Source
	maxBytes int64
	origins  []string // allowed cross-origin callers; "*" for any
	hosts    []string // Host names accepted beside loopback's; "*" for any
	remote   bool     // a Dir's files may refer to remote URLs
	budget   *budget
	wait     time.Duration
	conns    int
	idle     time.Duration
	root     *os.Root // a Dir's directory, through which its files read
	rootDir  string   // its path, symbolic links resolved
	fileOpts []h5.Option
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

// WithAllowOrigin lets web pages of the given origins ("http://host:port",
// as browsers send them in the Origin header; "*" for any) call the server:
// their requests are answered with Access-Control-Allow-Origin. By default
// none is: the h5web page the server sends itself is same-origin, and a
// request from any other origin is refused with 403, so that a page the
// user visits cannot read the served files.
func WithAllowOrigin(origins ...string) Option {
	return func(s *Server) error {
		for _, o := range origins {
			if o == "" {
				continue
			}
			if strings.ContainsAny(o, "\r\n ,") {
				return fmt.Errorf("h5grove: allowed origin %q: holds a space, comma or line break", o)
			}
			s.origins = append(s.origins, strings.TrimSuffix(o, "/"))
		}
		return nil
	}
}

// WithAllowHost adds host names that requests may carry in their Host
// header ("*" for any). Without it the server answers only requests for a
// loopback name (localhost, 127.0.0.1, [::1]) or the IP address the request
// came to, and refuses others with 403: a page on a domain that resolves to
// this machine's address (DNS rebinding) cannot read the files.
func WithAllowHost(names ...string) Option {
	return func(s *Server) error {
		for _, h := range names {
			if h == "" || strings.ContainsAny(h, "/@ \r\n") {
				return fmt.Errorf("h5grove: allowed host %q: not a host name", h)
			}
			s.hosts = append(s.hosts, strings.ToLower(h))
		}
		return nil
	}
}

// WithRemote lets the files of a Dir refer to remote URLs (LINDI refs,
// external links), which the server then fetches. By default they are
// refused: a file in the directory could otherwise make the server fetch
// any URL, one on its own network included.
func WithRemote() Option {
	return func(s *Server) error {
		s.remote = true
		return nil
	}
}

// WithOpenOptions passes options to h5.Open for every file the server opens.
func WithOpenOptions(opts ...h5.Option) Option {
	return func(s *Server) error {
		s.fileOpts = append(s.fileOpts, opts...)
		return nil
	}
}

// New returns a Server of the files of src. A Dir's directory is opened as
// an os.Root (closed by Close) through which every file the served files
// name is read: see the package documentation.
func New(src Source, opts ...Option) (*Server, error) {
	if src == nil {
		return nil, errors.New("h5grove: no source of files")
	}
	s := &Server{src: src, maxBytes: DefaultMaxBytes, wait: DefaultBudgetWait, conns: DefaultMaxConns, idle: DefaultIdleTimeout}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	if s.budget == nil {
		s.budget = newBudget(max(DefaultBudget, 2*s.maxBytes))
	}
	s.files.opts = s.fileOpts
	if d, ok := src.(Dir); ok {
		if err := s.confine(d); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// confine opens the directory of d as the root of every file the server
// opens, and refuses remote names unless WithRemote allowed them.
func (s *Server) confine(d Dir) error {
	dir, err := d.resolved()
	if err != nil {
		return fmt.Errorf("h5grove: served directory %s: %w", string(d), err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("h5grove: served directory: %w", err)
	}
	s.root, s.rootDir = root, dir
	s.files.opts = append(slices.Clip(s.files.opts), h5.WithRoot(root))
	if !s.remote {
		s.files.opts = append(s.files.opts, h5.WithLocalOnly())
	}
	return nil
}

// Close closes the files the server holds open, and a Dir's root. Requests
// still running keep their open files until they finish, but what they
// would open anew through the root fails.
func (s *Server) Close() error {
	s.files.close()
	if s.root != nil {
		// Open files keep their descriptors: a request still running
		// reads on.
		return s.root.Close()
	}
	return nil
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r) {
		writeError(w, http.StatusForbidden, fmt.Sprintf("host %q is not served here (lindi serve --allow-host names others)", r.Host))
		return
	}
	if !s.originAllowed(w, r) {
		writeError(w, http.StatusForbidden, "cross-origin requests are not allowed (lindi serve --allow-origin names the origins that may call)")
		return
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
		s.home(w, r)
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

// home answers "/": the h5web page for a browser; to another client (curl,
// a script checking that the server is up) a line saying where to point a
// browser.
func (s *Server) home(w http.ResponseWriter, r *http.Request) {
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		s.page(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	fmt.Fprintf(w, "lindi serve: h5grove's API is up; open http://%s/ in a web browser to browse the files with h5web\n", r.Host)
}

// request is one API call: its query and the file it names, open.
type request struct {
	name string // the file parameter
	loc  string // what the source located it at
	f    *h5.File
	q    queryArgs
	head bool // a HEAD request: headers only
	// hold reserves n bytes of the server's budget for the request, until
	// it ends; it fails with errBusy when they are not free in time.
	hold func(ctx context.Context, n int64) error
}

// serve opens the request's file and runs h on it; an error h returns
// before writing becomes an error answer.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, h func(context.Context, http.ResponseWriter, *request) error) {
	q := queryArgs(r.URL.Query())
	req := &request{name: q.get("file"), q: q, head: r.Method == http.MethodHead}
	if !q.has("file") {
		writeError(w, http.StatusUnprocessableEntity, "the file query argument is required")
		return
	}
	loc, err := s.src.Locate(req.name)
	if err == nil {
		err = checkKind(loc, req.name)
	}
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
	var held int64
	defer func() { s.budget.release(held) }()
	req.hold = func(ctx context.Context, n int64) error {
		if err := s.budget.acquire(ctx, n, s.wait); err != nil {
			return err
		}
		held += n
		setWriteDeadline(w, n)
		return nil
	}
	tw := &trackWriter{ResponseWriter: w}
	if err := h(r.Context(), tw, req); err != nil {
		if tw.wrote {
			// The answer has begun, so no error answer can follow: abort
			// the connection, net/http's way, so that the client sees a
			// broken answer rather than a short one.
			panic(http.ErrAbortHandler)
		}
		s.fail(w, req, err)
	}
}

// trackWriter records whether the answer has begun.
type trackWriter struct {
	http.ResponseWriter
	wrote bool
}

func (t *trackWriter) WriteHeader(code int) {
	t.wrote = true
	t.ResponseWriter.WriteHeader(code)
}

func (t *trackWriter) Write(p []byte) (int, error) {
	t.wrote = true
	return t.ResponseWriter.Write(p)
}

// Unwrap gives http.ResponseController the connection's writer.
func (t *trackWriter) Unwrap() http.ResponseWriter { return t.ResponseWriter }

// fail writes err as an error answer. Its message names the file as the
// request did and every other file by its path in the served directory:
// never where the server found them.
func (s *Server) fail(w http.ResponseWriter, req *request, err error) {
	var msg string
	switch {
	case errors.Is(err, source.ErrBlocked):
		// Say nothing of what was refused: not where it pointed, not
		// whether it exists.
		msg = fmt.Sprintf("%s refers to a file outside the served directory, to something that is not a regular file, or to a remote URL: not read", strconv.Quote(req.name))
	case errors.Is(err, errBusy):
		w.Header().Set("Retry-After", strconv.Itoa(retryAfter))
		msg = err.Error()
	default:
		msg = s.served(err.Error(), req)
	}
	if errors.Is(err, ErrNoFile) {
		msg = "File not found: " + msg // the phrase h5web looks for
	}
	writeError(w, statusOf(err), msg)
}

// served rewrites the local paths in msg as the client knows them: the
// request's file by its name, files in the served directory relative to it.
// Only whole absolute paths are rewritten, so no word of the message is
// lost.
func (s *Server) served(msg string, req *request) string {
	if req.loc != "" && req.loc != req.name && filepath.IsAbs(req.loc) {
		msg = replacePath(msg, req.loc, req.name)
	}
	if s.rootDir != "" && s.rootDir != string(filepath.Separator) {
		msg = replacePath(msg, s.rootDir+string(filepath.Separator), "")
	}
	return msg
}

// replacePath replaces each occurrence of the absolute path p in msg that
// begins a path (it follows no character a path could continue) by with.
func replacePath(msg, p, with string) string {
	var b strings.Builder
	done := 0 // msg[:done] is written
	for from := 0; ; {
		i := strings.Index(msg[from:], p)
		if i < 0 {
			b.WriteString(msg[done:])
			return b.String()
		}
		i += from
		if i > 0 && !strings.ContainsRune(pathStarts, rune(msg[i-1])) {
			from = i + 1
			continue
		}
		b.WriteString(msg[done:i])
		b.WriteString(with)
		done, from = i+len(p), i+len(p)
	}
}

// pathStarts are the characters after which a path in a message begins.
const pathStarts = " \t\n\"'`(:=[,"

// Errors of the API beside those of the Source.
var (
	errQuery    = errors.New("h5grove: invalid query argument")
	errPath     = errors.New("h5grove: not a valid path")
	errLink     = errors.New("h5grove: cannot resolve link")
	errKind     = errors.New("h5grove: wrong kind of entity")
	errTooLarge = errors.New("h5grove: response too large")
	errBusy     = errors.New("h5grove: the server is busy reading for other requests: try again")
)

func statusOf(err error) int {
	switch {
	case errors.Is(err, errBusy):
		return http.StatusServiceUnavailable
	case errors.Is(err, ErrForbidden), errors.Is(err, source.ErrBlocked):
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
	w.Header().Del("Content-Length")
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
