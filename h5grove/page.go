package h5grove

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
)

// web is the h5web page: web/build.sh makes it from web/src and the
// versions web/package-lock.json pins.
//
//go:embed web/dist
var web embed.FS

// page answers a browser asking for "/": with ?file=, the h5web page (which
// reads the file through this server); without, a list of the served files,
// or the page of the only one.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("file") != "" {
		b, err := web.ReadFile("web/dist/index.html")
		if err != nil {
			writeError(w, http.StatusInternalServerError, "the h5web page is missing from this build")
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(b)
		return
	}
	names := s.names()
	if len(names) == 1 {
		http.Redirect(w, r, "?file="+url.QueryEscape(names[0]), http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	listPage.Execute(w, names)
}

var listPage = template.Must(template.New("list").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lindi serve</title></head>
<body><h1>lindi serve</h1><ul>
{{range .}}<li><a href="?file={{.}}">{{.}}</a></li>
{{else}}<li>no files</li>
{{end}}</ul></body></html>
`))

// names lists the files to offer a browser: a Files' names, or what a Dir
// holds at its top level (hidden entries left out).
func (s *Server) names() []string {
	var names []string
	switch src := s.src.(type) {
	case Files:
		for name := range src {
			names = append(names, name)
		}
	case Dir:
		entries, _ := os.ReadDir(string(src))
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), ".") {
				names = append(names, e.Name())
			}
		}
	}
	slices.Sort(names)
	return names
}

// servePageAsset sends one of the page's scripts or style sheets, stored
// gzipped: as is to a client that takes gzip, inflated to another.
func servePageAsset(w http.ResponseWriter, r *http.Request, name string) {
	if strings.Contains(name, "/") || name == "" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no asset %s", name))
		return
	}
	b, err := web.ReadFile("web/dist/assets/" + name + ".gz")
	if err != nil {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no asset %s", name))
		return
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	w.Header().Set("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Write(b)
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		writeError(w, http.StatusInternalServerError, fmt.Sprintf("asset %s: %v", name, err))
		return
	}
	io.Copy(w, zr)
}
