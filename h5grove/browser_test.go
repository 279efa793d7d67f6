package h5grove

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chromium finds a Chromium to run headless, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: the h5web page is not tested in a browser (Debian: apt-get install chromium)")
	return ""
}

// TestBrowser loads the embedded h5web page in headless Chromium for an NWB
// file (HDF5) and a Zarr store, a dataset opened by the URL's path, and
// checks that the rendered page shows the file's tree and draws the dataset
// on a canvas: the page, its bundle and the API work together.
func TestBrowser(t *testing.T) {
	bin := chromium(t)
	ts := serve(t, Files{
		"tables.nwb":   filepath.Join("..", "testdata", "nwb", "tables.nwb"),
		"fixture.zarr": filepath.Join(conformance, "fixture.zarr"),
	})
	cases := []struct {
		file, path string
		names      []string
	}{
		{"tables.nwb", "/units/spike_times", []string{"acquisition", "intervals", "units", "spike_times", "waveforms"}},
		{"fixture.zarr", "/u2_3d", []string{"big_endian_i2", "blosc_zlib", "nested", "u2_3d"}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu",
				"--use-gl=swiftshader", "--enable-unsafe-swiftshader", "--no-first-run",
				"--user-data-dir="+t.TempDir(), "--window-size=1400,900",
				"--virtual-time-budget=20000", "--dump-dom",
				ts.URL+"/?file="+c.file+"&path="+c.path)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("chromium: %v", err)
			}
			dom := string(out)
			for _, name := range c.names {
				if !strings.Contains(dom, ">"+name+"<") {
					t.Errorf("the tree does not show %s", name)
				}
			}
			if !strings.Contains(dom, "<canvas") {
				t.Errorf("no canvas: %s is not drawn", c.path)
			}
			for _, bad := range []string{"File not found", "No entity found", "Something went wrong"} {
				if strings.Contains(dom, bad) {
					t.Errorf("the page says %q", bad)
				}
			}
			if t.Failed() {
				t.Logf("DOM: %.3000s", dom)
			}
		})
	}
}
