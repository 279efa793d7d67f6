package zarr3_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// TestShardIndexHTTP reads one shard with its index at the end over HTTP:
// one suffix range for the index (no request for the size), one for the
// chunk; a shard that does not exist is fill; a shard shorter than its
// index, or corrupt, is an error naming it.
func TestShardIndexHTTP(t *testing.T) {
	good := shard()
	read := func(t *testing.T, content []byte, present bool) ([]uint16, []string, error) {
		files := map[string]string{"zarr.json": rootGroup, "a/zarr.json": shardDoc}
		if present {
			files["a/c/0"] = string(content)
		}
		c := &counter{reqs: map[string]int{}, h: http.FileServer(http.Dir(writeStore(t, files)))}
		srv := httptest.NewServer(c)
		t.Cleanup(srv.Close)
		f, err := h5.Open(ctx, srv.URL)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Dataset(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		c.take()
		a, err := h5.Read[uint16](ctx, d, selection.Selection{selection.All()})
		rs := c.takeRanges()["/a/c/0"]
		if err != nil {
			return nil, rs, err
		}
		return a.Data, rs, nil
	}
	got, rs, err := read(t, good, true)
	if err != nil || !reflect.DeepEqual(got, []uint16{9, 9, 9, 9, 100, 101, 102, 103}) {
		t.Fatalf("got %v, %v", got, err)
	}
	if len(rs) != 2 || rs[0] != "bytes=-36" || rs[1] != "bytes=0-7" {
		t.Fatalf("requests %q, want the index's suffix range, then the chunk", rs)
	}
	got, rs, err = read(t, nil, false)
	if err != nil || !reflect.DeepEqual(got, []uint16{9, 9, 9, 9, 9, 9, 9, 9}) || len(rs) != 1 {
		t.Fatalf("missing shard: got %v, %v after requests %q; want fill after one", got, err, rs)
	}
	for _, n := range []int{0, 10, 35} {
		if _, _, err := read(t, good[:n], true); err == nil || !strings.Contains(err.Error(), "shorter than its 36-byte index") || !strings.Contains(err.Error(), "/a/c/0") {
			t.Errorf("shard of %d bytes: err %v", n, err)
		}
	}
	bad := append([]byte(nil), good...)
	bad[len(bad)-10] ^= 1
	if _, _, err := read(t, bad, true); !errors.Is(err, codecs.ErrCorrupt) || !strings.Contains(err.Error(), "crc32c") {
		t.Errorf("corrupt index: err %v", err)
	}
}
