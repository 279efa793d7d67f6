package fetch

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"

	"github.com/lindigo/lindi/io/source"
)

// FuzzFetch reads ranges drawn from the fuzz input out of the fixture file,
// under limits also drawn from it, and checks every delivery byte for byte.
func FuzzFetch(f *testing.F) {
	file := readFixture(f)
	f.Add(uint16(100), uint16(1000), uint16(100), []byte{0, 0, 1, 0, 0, 16, 0, 0, 0, 8, 0, 16})
	f.Add(uint16(0), uint16(1), uint16(1), file[:64])
	f.Add(uint16(4096), uint16(65535), uint16(512), file[512:1024])
	f.Fuzz(func(t *testing.T, gap, merged, part uint16, spec []byte) {
		fe, err := New(WithMaxGap(int64(gap)), WithMaxMerged(int64(merged)+1), WithPartSize(int64(part)*16+256), WithConcurrency(4))
		if err != nil {
			t.Fatal(err)
		}
		src := source.NewBytes("fixture", file)
		var rs []Range
		for len(spec) >= 6 && len(rs) < 200 {
			off := int64(binary.LittleEndian.Uint32(spec)) % int64(len(file)+1)
			n := int64(binary.LittleEndian.Uint16(spec[4:])) % (int64(len(file)) - off + 1)
			rs = append(rs, Range{Src: src, Off: off, Len: n})
			spec = spec[6:]
		}
		c := newCollector()
		if err := fe.Fetch(context.Background(), rs, c.deliver); err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if d, ok := c.got[i]; !ok || !bytes.Equal(d, file[r.Off:r.Off+r.Len]) {
				t.Fatalf("range %d (%d, +%d): wrong bytes", i, r.Off, r.Len)
			}
		}
		if len(c.dups) > 0 {
			t.Fatalf("duplicate deliveries %v", c.dups)
		}
	})
}
