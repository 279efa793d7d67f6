package zarr

import (
	"errors"
	"testing"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// FuzzHDMFAttrs: hdmf-zarr's attributes of any .zattrs (links, references,
// zarr_dtype) are read without panicking, and what fails is a format error.
func FuzzHDMFAttrs(f *testing.F) {
	f.Add([]byte(`{"zarr_link":[{"name":"device","path":"/general/devices/d","source":"."}]}`))
	f.Add([]byte(`{"zarr_link":[{"name":"x","path":"/a","source":"../other.nwb.zarr"}],"a":1}`))
	f.Add([]byte(`{"table":{"value":{"path":"/t","source":"."},"zarr_dtype":"object"},"zarr_dtype":"int64"}`))
	f.Add([]byte(`{"refs":{"value":[{"path":"/a/../b","source":"."}],"zarr_dtype":"object"}}`))
	f.Add([]byte(`{"zarr_dtype":[{"dtype":"int32","name":"idx_start"},{"dtype":"object","name":"timeseries"}]}`))
	f.Add([]byte(`{".specloc":"specifications"}`))
	{
		t := &tree{name: "/tmp/a.nwb.zarr"}
		f.Fuzz(func(t2 *testing.T, b []byte) {
			za, err := zarrmeta.ParseAttrs(b)
			if err != nil {
				return
			}
			if _, err := t.attrs(za, "/"); err != nil && !errors.Is(err, driver.ErrFormat) {
				t2.Fatalf("attrs: %v", err)
			}
			links, err := t.zarrLinks(za, "/g")
			if err != nil && !errors.Is(err, driver.ErrFormat) {
				t2.Fatalf("links: %v", err)
			}
			for _, l := range links {
				if l.Name == "" || l.Kind == driver.SoftLink && l.Target == "" || l.Kind == driver.ExternalLink && l.File == "" {
					t2.Fatalf("link %+v", l)
				}
			}
			if _, _, err := zarrDType(za); err != nil && !errors.Is(err, driver.ErrFormat) {
				t2.Fatalf("zarr_dtype: %v", err)
			}
		})
	}
}
