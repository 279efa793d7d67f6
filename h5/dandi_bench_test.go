package h5_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/internal/h5gen"
	"github.com/lindigo/lindi/io/source"
)

// BenchmarkDANDIOpen opens a many-object asset (internal/h5gen's 120-series
// NWB-shaped HDF5 file, 601 objects, the file of lindi-bench) of a stand-in
// archive whose every answer takes 20 ms, from its HDF5 blob and from its
// precomputed LINDI file: "open" is h5.Open alone (lookup included: the API
// cache is cleared each time), "tree" opens and walks every object, as
// lindi ls -r does. With LINDI_SLOWSERVE naming the binary of
// ../shared/bench's slowserve, the blob and the precomputed file are served
// by it (at 20 ms) instead of by the stand-in.
func BenchmarkDANDIOpen(b *testing.B) {
	const latency = 20 * time.Millisecond
	ctx := context.Background()
	data, err := h5gen.NWB(120, 6000)
	if err != nil {
		b.Fatal(err)
	}
	asset := danditest.Asset{Path: "sub-01/meta.nwb", Data: data}
	dir, base := b.TempDir(), ""
	if bin := os.Getenv("LINDI_SLOWSERVE"); bin != "" {
		base = slowserve(b, bin, dir, latency)
		if err := os.WriteFile(filepath.Join(dir, "meta.nwb"), data, 0o644); err != nil {
			b.Fatal(err)
		}
		asset = danditest.Asset{Path: asset.Path, URL: base + "/meta.nwb", Size: int64(len(data))}
	}
	asset.Precomputed = precompute(b, data)
	s := danditest.New(b, danditest.Dandiset{ID: "000409", Draft: []danditest.Asset{asset}})
	s.Latency = latency
	s.Setenv(b, "")
	if base != "" {
		p := filepath.Join(dir, danditest.Instance, "dandisets", "000409", "assets", s.AssetID("000409", "draft", asset.Path), "nwb.lindi.json")
		doc := strings.ReplaceAll(string(asset.Precomputed), danditest.BlobURL, asset.URL)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
			b.Fatal(err)
		}
	} else {
		base = s.PrecomputedURL()
	}
	name := "dandi://" + danditest.Instance + "/000409/" + asset.Path
	pc, err := dandi.NewClient(dandi.WithPrecomputed(base))
	if err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name, format string
		pre          source.Option
	}{{"hdf5", "HDF5", source.WithOriginal()}, {"precomputed", "LINDI JSON", source.WithLocator(pc.Locate)}} {
		for _, tree := range []bool{false, true} {
			b.Run(mode.name+map[bool]string{false: "/open", true: "/tree"}[tree], func(b *testing.B) {
				for b.Loop() {
					dandi.ClearCache()
					pc.ClearCache()
					f, err := h5.Open(ctx, name, h5.WithSourceOptions(mode.pre))
					if err != nil {
						b.Fatal(err)
					}
					if f.Format() != mode.format {
						b.Fatalf("opened as %s", f.Format())
					}
					if tree {
						n := 0
						err = f.Root().Walk(ctx, func(string, h5.Link, h5.Object, error) error { n++; return nil })
						if err != nil || n < 600 {
							b.Fatalf("walked %d objects: %v", n, err)
						}
					}
					f.Close()
				}
			})
		}
	}
}

// precompute is the LINDI JSON of the HDF5 file data whose refs name
// danditest.BlobURL.
func precompute(b *testing.B, data []byte) []byte {
	ctx := context.Background()
	f, err := hdf5.Open(ctx, source.NewBytes("meta.nwb", data))
	if err != nil {
		b.Fatal(err)
	}
	doc, err := index.Build(ctx, f, index.WithURL(danditest.BlobURL))
	if err != nil {
		b.Fatal(err)
	}
	return doc
}

// slowserve starts ../shared/bench's range server on dir and returns its
// base URL.
func slowserve(b *testing.B, bin, dir string, latency time.Duration) string {
	pf := filepath.Join(b.TempDir(), "port")
	cmd := exec.Command(bin, "-dir", dir, "-latency", latency.String(), "-portfile", pf)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for range 200 {
		if addr, err := os.ReadFile(pf); err == nil && len(addr) > 0 {
			return "http://" + strings.TrimSpace(string(addr))
		}
		time.Sleep(10 * time.Millisecond)
	}
	b.Fatal("slowserve did not start")
	return ""
}
