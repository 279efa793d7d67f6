package fetch

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/lindigo/lindi/io/source"
)

// TestErrorTexts is the regression test of the misleading texts of issue 13
// (7): a range past the end of a 1 MB file said "source ends after
// 268343840 bytes", and an overflowing range printed negative numbers.
func TestErrorTexts(t *testing.T) {
	src := source.NewBytes("mem", make([]byte, 1<<20))
	f, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		r    Range
		want []string
	}{
		{Range{Src: src, Off: 268343840, Len: 100}, []string{"starts past the end", "1048576 bytes"}},
		{Range{Src: src, Off: 1<<20 - 10, Len: 100}, []string{"ends at 1048666", "1048576 bytes"}},
		{Range{Src: src, Off: math.MaxInt64 - 5, Len: 100}, []string{"100 bytes at offset 9223372036854775802", "overflows"}},
	} {
		err := f.Fetch(context.Background(), []Range{tc.r}, func(int, []byte) error { return nil })
		if err == nil {
			t.Errorf("%+v: no error", tc.r)
			continue
		}
		msg := err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%d bytes at %d: %q does not say %q", tc.r.Len, tc.r.Off, msg, w)
			}
		}
		if strings.Contains(msg, ", -") || strings.Contains(msg, "[-") || strings.Contains(msg, "ends after 268") {
			t.Errorf("misleading: %q", msg)
		}
	}
}
