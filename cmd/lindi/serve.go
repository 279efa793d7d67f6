package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

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
	budget := fs.Int64("max-memory", h5grove.DefaultBudget, "bytes the reads of all requests may hold at once (at least twice --max-bytes); more wait, then get 503")
	conns := fs.Int("max-conns", h5grove.DefaultMaxConns, "connections held open at once")
	origins := fs.String("allow-origin", "", `comma-separated origins of web pages that may call the server ("http://host:port", "*" for any); none by default`)
	hosts := fs.String("allow-host", "", "comma-separated host names requests may name besides loopback's and the address served (\"*\" for any)")
	remote := fs.Bool("allow-remote", false, "let files under --basedir refer to remote URLs, which the server then fetches")
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if (*basedir == "") == (len(pos) == 0) {
		return usagef("serve takes --basedir DIR or FILE_OR_URL…, one or the other")
	}
	if *port < 0 || *port > 65535 {
		return usagef("--port %d is not a port", *port)
	}
	if *maxBytes <= 0 || *budget < 2**maxBytes || *conns <= 0 {
		return usagef("--max-bytes and --max-conns must be positive, --max-memory at least twice --max-bytes")
	}
	var src h5grove.Source = h5grove.Dir(*basedir)
	if len(pos) > 0 {
		if src, err = namedFiles(pos); err != nil {
			return err
		}
	}
	opts := []h5grove.Option{
		h5grove.WithMaxBytes(*maxBytes), h5grove.WithBudget(*budget, h5grove.DefaultBudgetWait),
		h5grove.WithMaxConns(*conns), h5grove.WithAllowOrigin(list(*origins)...), h5grove.WithAllowHost(list(*hosts)...),
		h5grove.WithOpenOptions(openOptions(ctx)...),
	}
	if *remote {
		opts = append(opts, h5grove.WithRemote())
	}
	srv, err := h5grove.New(src, opts...)
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort(*ip, strconv.Itoa(*port)))
	if err != nil {
		return err
	}
	printURLs(stderr, ln.Addr().String(), src)
	return srv.Serve(ctx, ln)
}

// list splits a comma-separated flag value.
func list(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// printURLs says where a browser opens what is served: each named file's
// page, or the directory's list.
func printURLs(w io.Writer, addr string, src h5grove.Source) {
	base := "http://" + addr + "/"
	files, ok := src.(h5grove.Files)
	if !ok {
		fmt.Fprintf(w, "lindi: serving %s with h5grove's API; open it in a web browser:\n  %s\n", string(src.(h5grove.Dir)), base)
		return
	}
	fmt.Fprintf(w, "lindi: serving with h5grove's API; open in a web browser:\n")
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %s?file=%s\n", base, url.QueryEscape(name))
	}
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
