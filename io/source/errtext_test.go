package source

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestHTTPWholeBodyCounted checks that --stats sees the bytes a server that
// ignores Range really sent: the whole object, not the range asked for.
func TestHTTPWholeBodyCounted(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 100))
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.Write(data)
	}))
	h, err := NewHTTP(srv.URL+"/f", WithResolver(nil))
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 10)
	if _, err := h.ReadAt(context.Background(), p, 100); err != nil || string(p) != "0123456789" {
		t.Fatalf("ReadAt = %q, %v", p, err)
	}
	if got := h.Stats().Bytes; got != int64(len(data)) {
		t.Fatalf("Stats().Bytes = %d, want the %d bytes sent", got, len(data))
	}
}

// TestErrorsSayItOnce checks that failures name the package and the URL
// once, and that a server ignoring Range names the option that allows it.
func TestErrorsSayItOnce(t *testing.T) {
	big := make([]byte, 3<<20)
	ignoring := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(big)))
		w.Write(big)
	}))
	html := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<html>"))
	}))
	var s sleeps
	cases := []struct {
		name, url string
		want      error
	}{
		{"ignores Range", ignoring.URL + "/f", ErrWhole},
		{"web page", html.URL + "/f", ErrProtocol},
		{"refused", "http://127.0.0.1:1/f", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h, err := NewHTTP(c.url, WithResolver(nil), fastRetry(&s))
			if err != nil {
				t.Fatal(err)
			}
			_, err = h.ReadAt(context.Background(), make([]byte, 10), 5)
			if err == nil || (c.want != nil && !errors.Is(err, c.want)) {
				t.Fatalf("err = %v, want %v", err, c.want)
			}
			msg := err.Error()
			if n := strings.Count(msg, "source:"); n != 1 {
				t.Errorf("%q says source: %d times", msg, n)
			}
			if n := strings.Count(msg, c.url); n != 1 {
				t.Errorf("%q names the URL %d times", msg, n)
			}
			if c.name == "refused" && len(s.all()) != 0 {
				t.Errorf("a refused connection was retried after waits %v", s.all())
			}
			if c.want == ErrWhole && !strings.Contains(msg, "WithMaxWhole") {
				t.Errorf("%q does not name WithMaxWhole", msg)
			}
		})
	}
}
