package inflate

import (
	"bytes"
	stdgzip "compress/gzip"
	"errors"
	"testing"
	"time"
)

func TestZlib(t *testing.T) {
	raw, enc := zlibChunk(t)
	bad := bytes.Clone(enc)
	bad[len(bad)-1] ^= 1 // Adler-32 trailer
	dict := bytes.Clone(enc)
	dict[1] = dict[1]&0xc0 | 0x20 // FDICT, with check bits that hold
	dict[1] |= byte((31 - (uint16(dict[0])<<8|uint16(dict[1]))%31) % 31)
	tests := []struct {
		name    string
		src     []byte
		wantErr bool
	}{
		{"whole", enc, false},
		{"trailing bytes ignored", append(bytes.Clone(enc), "tail"...), false},
		{"bad checksum", bad, true},
		{"no checksum", enc[:len(enc)-4], true},
		{"truncated", enc[:len(enc)/2], true},
		{"not zlib", []byte("hello, world"), true},
		{"preset dictionary", dict, true},
		{"empty", nil, true},
	}
	// Twice, so that the second round reuses decoders that failed.
	for range 2 {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := Zlib(nil, tt.src, len(raw))
				if tt.wantErr {
					if err == nil {
						t.Fatal("no error")
					}
					return
				}
				if err != nil || !bytes.Equal(got, raw) {
					t.Fatalf("got %d bytes, err %v; want %d bytes", len(got), err, len(raw))
				}
			})
		}
	}
	if _, err := Zlib(nil, enc, len(raw)-1); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("limit one byte short: %v", err)
	}
}

func TestGzip(t *testing.T) {
	raw := noisyInt16(100 << 10)
	var buf bytes.Buffer
	w := stdgzip.NewWriter(&buf)
	w.Name, w.Comment, w.Extra, w.ModTime = "chunk.bin", "a comment", []byte("xy"), time.Unix(1e9, 0)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	enc := buf.Bytes()
	member := len(enc)
	got, n, err := Gzip(nil, append(bytes.Clone(enc), 0, 0), len(raw))
	if err != nil || !bytes.Equal(got, raw) || n != member {
		t.Fatalf("got %d bytes, took %d of %d, err %v", len(got), n, member, err)
	}
	for name, src := range map[string][]byte{
		"bad crc":   append(bytes.Clone(enc[:member-8]), 0, 0, 0, 0, enc[member-4], enc[member-3], enc[member-2], enc[member-1]),
		"bad size":  append(bytes.Clone(enc[:member-4]), 1, 0, 0, 0),
		"truncated": enc[:member-3],
		"header":    enc[:12],
		"reserved":  append([]byte{0x1f, 0x8b, 8, 0x20}, enc[4:]...),
		"not gzip":  []byte("plain text, not gzip"),
	} {
		if _, _, err := Gzip(nil, src, len(raw)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
