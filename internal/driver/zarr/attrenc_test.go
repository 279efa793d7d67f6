package zarr

import (
	"errors"
	"math"
	"testing"
)

func TestEncodeAttr(t *testing.T) {
	good := []struct {
		v    any
		want string
	}{
		{3, "3"}, {uint8(7), "7"}, {true, "true"}, {30000.0, "30000.0"}, {1.5, "1.5"},
		{float32(0.5), "0.5"}, {1e300, "1e+300"}, {math.NaN(), `"NaN"`},
		{math.Inf(-1), `"-Infinity"`}, {"hé", `"hé"`}, {[]int{1, 2}, "[1,2]"},
		{[][]float64{{1, 2}, {3, 4}}, "[[1.0,2.0],[3.0,4.0]]"}, {[]any{"a", "b"}, `["a","b"]`},
		{[]int{}, "[]"},
	}
	for _, c := range good {
		got, err := encodeAttr(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("encodeAttr(%v) = %s, %v; want %s", c.v, got, err, c.want)
		}
	}
	for _, v := range []any{nil, "NaN", []any{1, "a"}, map[string]int{}, complex(1, 2), []any{nil}} {
		if _, err := encodeAttr(v); !errors.Is(err, errAttrValue) {
			t.Errorf("encodeAttr(%#v) err = %v, want errAttrValue", v, err)
		}
	}
}
