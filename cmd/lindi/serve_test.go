package main

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPlot writes the PNG of a time series and of one image of a stack, and
// refuses what has no plot.
func TestPlot(t *testing.T) {
	for _, c := range [][]string{
		{"../../testdata/nwb/tables.nwb", "acquisition/ElectricalSeries/data", "0:300"},
		{"../../testdata/conformance/fixture.lindi.json", "acquisition/TwoPhotonSeries/data", "3, :, :"},
		{"--stack", "../../testdata/conformance/fixture.h5", "acquisition/ElectricalSeries/data", "0:300, :"},
	} {
		out := filepath.Join(t.TempDir(), "p.png")
		if code, _, stderr := lindi(append([]string{"plot", "-o", out}, c...)...); code != 0 {
			t.Fatalf("plot %v: exit %d: %s", c, code, stderr)
		}
		r, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(r)
		r.Close()
		if err != nil || img.Bounds().Dx() != 768 || img.Bounds().Dy() != 432 {
			t.Errorf("plot %v: %v, bounds %v", c, err, img.Bounds())
		}
	}
	failsWith(t, "select 1 or 2 dimensions", "plot", "-o", filepath.Join(t.TempDir(), "p.png"), "../../testdata/conformance/fixture.h5", "acquisition/TwoPhotonSeries/data")
	if code, _, _ := lindi("plot", "../../testdata/conformance/fixture.h5"); code != 2 {
		t.Errorf("plot FILE: exit %d, want a usage error", code)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServe runs lindi serve on a free loopback port with two files and
// asks its API for each by name, then stops it.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--port", "0", "../../testdata/nwb/tables.nwb", "../../testdata/conformance/fixture.zarr"}, io.Discard, &stderr)
	}()
	addr := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`)
	var base string
	for base == "" {
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
			base = addr.FindString(stderr.String())
		}
	}
	for _, page := range []string{base + "?file=tables.nwb\n", base + "?file=fixture.zarr\n"} {
		if !strings.Contains(stderr.String(), page) {
			t.Errorf("serve does not print %q: %s", page, stderr.String())
		}
	}
	res, err := http.Get(base)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(b), "open "+base+" in a web browser") {
		t.Errorf("/ without a browser: %q", b)
	}
	for _, q := range []string{"meta?file=tables.nwb&path=/units", "data?file=fixture.zarr&path=/u2_3d&selection=0,0,0:3"} {
		res, err := http.Get(base + q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.HasPrefix(string(b), "{") && !strings.HasPrefix(string(b), "[") {
			t.Errorf("%s: %d %s", q, res.StatusCode, b)
		}
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve stopped with exit %d: %s", code, stderr.String())
	}
	if code, _, _ := lindi("serve", "--basedir", ".", "x.h5"); code != 2 {
		t.Errorf("serve --basedir and a file: exit %d, want a usage error", code)
	}
}
