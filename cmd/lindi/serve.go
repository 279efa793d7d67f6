package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/lindigo/lindi/h5grove"
)

// cmdServe serves files over h5grove's API, with the h5web page, until ctx
// ends (an interrupt).
func cmdServe(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	ip := fs.String("ip", "127.0.0.1", "address to listen on (another than loopback lets other machines read the files)")
	port := fs.Int("port", 8888, "port to listen on (0: any free port)")
	basedir := fs.String("basedir", "", "serve every file under this directory, found when asked for")
	maxBytes := fs.Int64("max-bytes", h5grove.DefaultMaxBytes, "largest read one request may make, in bytes")
	origin := fs.String("allow-origin", "*", `Access-Control-Allow-Origin of every answer ("" for none)`)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if (*basedir == "") == (len(pos) == 0) {
		return usagef("serve takes --basedir DIR or FILE_OR_URL…, one or the other")
	}
	if *port < 0 || *port > 65535 {
		return usagef("--port %d is not a port", *port)
	}
	if *maxBytes <= 0 {
		return usagef("--max-bytes must be positive")
	}
	var src h5grove.Source = h5grove.Dir(*basedir)
	if len(pos) > 0 {
		if src, err = namedFiles(pos); err != nil {
			return err
		}
	}
	srv, err := h5grove.New(src, h5grove.WithMaxBytes(*maxBytes), h5grove.WithAllowOrigin(*origin))
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort(*ip, strconv.Itoa(*port)))
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "lindi: serving h5grove's API and h5web at http://%s/\n", ln.Addr())
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// namedFiles names each file by its last path segment; two of one name are
// a usage error.
func namedFiles(locs []string) (h5grove.Files, error) {
	files := h5grove.Files{}
	for _, loc := range locs {
		name := filepath.Base(loc)
		if u, err := url.Parse(loc); err == nil && u.Scheme != "" && len(u.Scheme) > 1 {
			name = path.Base(strings.TrimRight(u.Path, "/"))
		} else if abs, err := filepath.Abs(loc); err == nil {
			loc = abs
		}
		if _, dup := files[name]; dup {
			return nil, usagef("two files are named %s", name)
		}
		files[name] = loc
	}
	return files, nil
}
