package source

import (
	"context"
	"testing"
)

func BenchmarkFileReadAt(b *testing.B) {
	f, err := OpenFile(fixture)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	p := make([]byte, 64<<10)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	off := int64(0)
	for b.Loop() {
		if _, err := f.ReadAt(ctx, p, off); err != nil {
			b.Fatal(err)
		}
		off = (off + int64(len(p))) % (f.size - int64(len(p)))
	}
}

func BenchmarkCacheHit(b *testing.B) {
	lru, _ := NewLRU(DefaultCacheBytes)
	c := NewCache(NewBytes("f", readFixture(b)), lru)
	p := make([]byte, 4096)
	ctx := context.Background()
	if _, err := c.ReadAt(ctx, p, 1000); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := c.ReadAt(ctx, p, 1000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHTTPReadAt(b *testing.B) {
	data := readFixture(b)
	srv := serveB(b, data)
	h, err := NewHTTP(srv+"/f", WithResolver(nil))
	if err != nil {
		b.Fatal(err)
	}
	p := make([]byte, 64<<10)
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		if _, err := h.ReadAt(ctx, p, 4096); err != nil {
			b.Fatal(err)
		}
	}
}
