package hdf5

import (
	"context"
	"errors"
	"testing"
)

func TestHeapIDs(t *testing.T) {
	tests := []struct {
		name  string
		idLen int
		id    []byte
		want  string
		err   error
	}{
		{"tiny", 8, []byte{0x22, 'a', 'b', 'c', 0, 0, 0, 0}, "abc", nil},
		{"tiny one byte", 8, []byte{0x20, 'z'}, "z", nil},
		{"tiny extended", 20, []byte{0x20, 0x02, 'x', 'y', 'z'}, "xyz", nil},
		{"tiny longer than its ID", 8, []byte{0x2f, 'a'}, "", ErrFormat},
		{"empty", 8, nil, "", ErrFormat},
		{"version 1", 8, []byte{0x40, 0}, "", ErrFormat},
		{"type 3", 8, []byte{0x30, 0}, "", ErrFormat},
		{"managed, short ID", 8, []byte{0x00, 1}, "", ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := &fractalHeap{idLen: tc.idLen, offSize: 4, lenSize: 2, maxDirect: 1 << 16}
			got, err := h.object(context.Background(), tc.id)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Errorf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Errorf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
