package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memSource is an in-memory source.Source that counts requests and can
// hold reads until released.
type memSource struct {
	data     []byte
	requests atomic.Int64
	gate     chan struct{} // when non-nil, each ReadAt waits for a value
}

func (m *memSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	m.requests.Add(1)
	if m.gate != nil {
		select {
		case <-m.gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if off < 0 || off > int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memSource) Size(context.Context) (int64, error) { return int64(len(m.data)), nil }
func (m *memSource) Name() string                        { return "mem" }

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

func TestChecksum(t *testing.T) {
	tests := []struct {
		name string
		in   string
		init uint32
		want uint32
	}{
		// Vectors printed by lookup3.c's driver5.
		{"empty", "", 0, 0xdeadbeef},
		{"empty init", "", 0xdeadbeef, 0xbd5b7dde},
		{"four score", "Four score and seven years ago", 0, 0x17770551},
		{"four score init", "Four score and seven years ago", 1, 0xcd628161},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hashlittle([]byte(tt.in), tt.init); got != tt.want {
				t.Errorf("hashlittle(%q, %d) = %#08x, want %#08x", tt.in, tt.init, got, tt.want)
			}
		})
	}
}

func TestChecksumFixtureSuperblock(t *testing.T) {
	b, err := os.ReadFile("../../../testdata/conformance/fixture-latest.h5")
	if err != nil {
		t.Fatal(err)
	}
	// A version 3 superblock with 8-byte offsets is 48 bytes, checksum last.
	if b[8] != 3 {
		t.Fatalf("superblock version %d, want 3", b[8])
	}
	if err := VerifyChecksum(b[:48], "superblock"); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(b[:48])
	bad[20] ^= 1
	if err := VerifyChecksum(bad, "superblock"); !errors.Is(err, ErrChecksum) {
		t.Fatalf("corrupted superblock: err = %v, want ErrChecksum", err)
	}
	if err := VerifyChecksum(bad[:3], "tiny"); !errors.Is(err, ErrShort) {
		t.Fatalf("3-byte structure: err = %v, want ErrShort", err)
	}
}

func TestDecoder(t *testing.T) {
	s8 := Sizes{OffsetSize: 8, LengthSize: 8}
	s4 := Sizes{OffsetSize: 4, LengthSize: 2}
	tests := []struct {
		name  string
		in    []byte
		sizes Sizes
		run   func(d *Decoder) []uint64
		want  []uint64
		short bool
	}{
		{"ints", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, s8,
			func(d *Decoder) []uint64 {
				return []uint64{uint64(d.Uint8()), uint64(d.Uint16()), uint64(d.Uint32()), d.Uint64()}
			},
			[]uint64{1, 0x0302, 0x07060504, 0x0f0e0d0c0b0a0908}, false},
		{"widths", []byte{1, 2, 3, 0xff, 0xff, 0xff, 0xff, 5, 0}, s4,
			func(d *Decoder) []uint64 { return []uint64{d.Uint(3), d.Offset(), d.Length()} },
			[]uint64{0x030201, Undefined, 5}, false},
		{"undefined 8", bytes.Repeat([]byte{0xff}, 8), s8,
			func(d *Decoder) []uint64 { return []uint64{d.Offset()} },
			[]uint64{Undefined}, false},
		{"short", []byte{1, 2, 3}, s8,
			func(d *Decoder) []uint64 { return []uint64{uint64(d.Uint16()), uint64(d.Uint16()), uint64(d.Uint8())} },
			[]uint64{0x0201, 0, 0}, true},
		{"zero sizes", []byte{1, 2, 3, 4}, Sizes{},
			func(d *Decoder) []uint64 { return []uint64{d.Offset()} },
			[]uint64{0}, true},
		{"bad width", []byte{1, 2, 3, 4}, s8,
			func(d *Decoder) []uint64 { return []uint64{d.Uint(9)} },
			[]uint64{0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := NewDecoder(tt.in, tt.sizes)
			got := tt.run(d)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %x, want %x", got, tt.want)
			}
			if (d.Err() != nil) != tt.short {
				t.Errorf("Err() = %v, want error: %v", d.Err(), tt.short)
			}
		})
	}
}

func TestDecoderSignatureSeekRest(t *testing.T) {
	d := NewDecoder([]byte("TREEabcdef"), Sizes{})
	d.Signature("TREE")
	if d.Pos() != 4 || d.Len() != 6 {
		t.Fatalf("Pos, Len = %d, %d", d.Pos(), d.Len())
	}
	d.Seek(8)
	if got := string(d.Rest()); got != "ef" || d.Err() != nil {
		t.Fatalf("Rest = %q, err %v", got, d.Err())
	}
	d.Seek(11)
	if !errors.Is(d.Err(), ErrShort) {
		t.Fatalf("seek past end: %v", d.Err())
	}
	d = NewDecoder([]byte("HEAPx"), Sizes{})
	d.Signature("TREE")
	if !errors.Is(d.Err(), ErrSignature) {
		t.Fatalf("wrong signature: %v, want ErrSignature", d.Err())
	}
	if d.Uint8() != 0 {
		t.Fatal("read after error returned data")
	}
}

func newReader(t testing.TB, data []byte, opts ...Option) (*Reader, *memSource) {
	t.Helper()
	src := &memSource{data: data}
	r, err := New(context.Background(), src, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r, src
}

func TestReaderReadAt(t *testing.T) {
	data := pattern(10000)
	r, src := newReader(t, data, WithPageSize(1024), WithCacheBytes(4096))
	ctx := context.Background()
	tests := []struct {
		name     string
		off, n   uint64
		wantErr  error
		requests int64 // new source requests, -1 to skip the check
	}{
		{"first page", 10, 100, nil, 1},
		{"same page again", 500, 200, nil, 0},
		{"straddles pages", 1000, 100, nil, 1},
		{"last short page", 9990, 10, nil, 1},
		{"whole file uncached", 0, 10000, nil, 1},
		{"empty at EOF", 10000, 0, nil, 0},
		{"past EOF", 9990, 11, ErrOutOfRange, 0},
		{"undefined", Undefined, 1, ErrOutOfRange, 0},
		{"overflow", Undefined - 4, 10, ErrOutOfRange, 0},
		{"too large", 0, MaxRead + 1, ErrTooLarge, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := src.requests.Load()
			got, err := r.Bytes(ctx, tt.off, tt.n)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && !bytes.Equal(got, data[tt.off:tt.off+tt.n]) {
				t.Fatal("wrong bytes")
			}
			if n := src.requests.Load() - before; n != tt.requests {
				t.Errorf("%d requests, want %d", n, tt.requests)
			}
		})
	}
}

func TestReaderEviction(t *testing.T) {
	r, src := newReader(t, pattern(8192), WithPageSize(1024), WithCacheBytes(2048))
	ctx := context.Background()
	for _, off := range []uint64{0, 1024, 2048, 0} { // page 0 evicted by page 2
		if _, err := r.Bytes(ctx, off, 8); err != nil {
			t.Fatal(err)
		}
	}
	if n := src.requests.Load(); n != 4 {
		t.Fatalf("%d requests, want 4 (LRU of 2 pages)", n)
	}
	st := r.Stats()
	if st.Misses != 4 || st.Hits != 0 || st.Requests != 4 || st.BytesRead != 4096 {
		t.Fatalf("Stats = %+v", st)
	}
}

func TestReaderWithSizes(t *testing.T) {
	data := pattern(4096)
	r, _ := newReader(t, data)
	ctx := context.Background()
	rb, err := r.WithSizes(Sizes{OffsetSize: 8, LengthSize: 8, Base: 512})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rb.Bytes(ctx, 10, 4)
	if err != nil || !bytes.Equal(got, data[522:526]) {
		t.Fatalf("Bytes with base = %v, %v", got, err)
	}
	if _, err := rb.Bytes(ctx, 4096-512, 1); !errors.Is(err, ErrOutOfRange) {
		t.Fatalf("past EOF with base: %v", err)
	}
	d, err := rb.Decoder(ctx, 0, 16)
	if err != nil || d.Offset() != DecodeUint(data[512:520]) {
		t.Fatalf("Decoder: %v", err)
	}
	for _, s := range []Sizes{{OffsetSize: 3, LengthSize: 8}, {OffsetSize: 8, LengthSize: 0}, {OffsetSize: 8, LengthSize: 8, Base: 5000}} {
		if _, err := r.WithSizes(s); err == nil {
			t.Errorf("WithSizes(%+v) accepted", s)
		}
	}
}

func TestNewOptions(t *testing.T) {
	src := &memSource{data: pattern(10)}
	ctx := context.Background()
	for _, opts := range [][]Option{
		{WithPageSize(1000)},
		{WithPageSize(256)},
		{WithCacheBytes(0)},
		{WithPageSize(4096), WithCacheBytes(1000)},
	} {
		if _, err := New(ctx, src, opts...); err == nil {
			t.Errorf("options %d accepted", len(opts))
		}
	}
}

// TestReaderConcurrentMisses checks that goroutines missing the same
// page at once cause one request.
func TestReaderConcurrentMisses(t *testing.T) {
	data := pattern(1 << 16)
	src := &memSource{data: data, gate: make(chan struct{})}
	r, err := New(context.Background(), src, WithPageSize(4096))
	if err != nil {
		t.Fatal(err)
	}
	const n = 16
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			got, err := r.Bytes(context.Background(), uint64(i*100), 50)
			if err == nil && !bytes.Equal(got, data[i*100:i*100+50]) {
				err = errors.New("wrong bytes")
			}
			errs[i] = err
		})
	}
	for src.requests.Load() == 0 {
		runtime.Gosched() // wait for the first request to block on the gate
	}
	close(src.gate)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("goroutine %d: %v", i, err)
		}
	}
	if got := src.requests.Load(); got != 1 {
		t.Errorf("%d requests for one page, want 1", got)
	}
}

// TestReaderCancelledLeader checks that a waiter is not failed by the
// cancellation of the goroutine that leads the fetch.
func TestReaderCancelledLeader(t *testing.T) {
	src := &memSource{data: pattern(8192), gate: make(chan struct{})}
	r, err := New(context.Background(), src, WithPageSize(4096))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		_, err := r.Bytes(ctx, 0, 8)
		leader <- err
	}()
	for src.requests.Load() == 0 {
		runtime.Gosched()
	}
	waiter := make(chan error, 1)
	go func() {
		_, err := r.Bytes(context.Background(), 8, 8)
		waiter <- err
	}()
	cancel()
	if err := <-leader; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v, want context.Canceled", err)
	}
	close(src.gate) // let the waiter's retry through
	if err := <-waiter; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

func BenchmarkChecksum(b *testing.B) {
	p := pattern(4096)
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	for b.Loop() {
		Checksum(p)
	}
}

func BenchmarkReaderCached(b *testing.B) {
	r, _ := newReader(b, pattern(1<<20))
	ctx := context.Background()
	p := make([]byte, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(p)))
	var off uint64
	for b.Loop() {
		if err := r.ReadAt(ctx, p, off); err != nil {
			b.Fatal(err)
		}
		off = (off + 4099) % (1<<20 - 256)
	}
}

// TestReaderStraddleConcurrent checks that the pages of a read that
// straddles pages are requested at the same time, not one after another.
func TestReaderStraddleConcurrent(t *testing.T) {
	data := pattern(8192)
	src := &memSource{data: data, gate: make(chan struct{})}
	r, err := New(context.Background(), src, WithPageSize(1024))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		got, err := r.Bytes(context.Background(), 1000, 2000) // pages 0, 1 and 2
		if err == nil && !bytes.Equal(got, data[1000:3000]) {
			err = errors.New("wrong bytes")
		}
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for src.requests.Load() < 3 {
		if time.Now().After(deadline) {
			close(src.gate)
			t.Fatalf("%d requests in flight, want 3 at once", src.requests.Load())
		}
		runtime.Gosched()
	}
	close(src.gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
