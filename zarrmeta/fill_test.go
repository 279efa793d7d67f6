package zarrmeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"
)

func TestParseFill(t *testing.T) {
	le, be := "<", ">"
	tests := []struct {
		name  string
		dtype string
		fill  string // JSON; "" means absent
		want  []byte
		null  bool
	}{
		{"null", `"<f8"`, `null`, make([]byte, 8), true},
		{"absent", `"<i2"`, ``, make([]byte, 2), true},
		{"bool true", `"|b1"`, `true`, []byte{1}, false},
		{"bool false", `"|b1"`, `false`, []byte{0}, false},
		{"bool 1", `"|b1"`, `1`, []byte{1}, false},
		{"i1 -1", `"|i1"`, `-1`, []byte{0xff}, false},
		{"i1 min", `"|i1"`, `-128`, []byte{0x80}, false},
		{"u1 max", `"|u1"`, `255`, []byte{0xff}, false},
		{"i2 le", `"` + le + `i2"`, `-2`, []byte{0xfe, 0xff}, false},
		{"i2 be", `"` + be + `i2"`, `258`, []byte{1, 2}, false},
		{"i4 float integral", `"<i4"`, `7.0`, []byte{7, 0, 0, 0}, false},
		{"i8 min", `"<i8"`, `-9223372036854775808`, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}, false},
		{"u8 max", `">u8"`, `18446744073709551615`, bytes.Repeat([]byte{0xff}, 8), false},
		{"u4", `">u4"`, `4294967295`, []byte{0xff, 0xff, 0xff, 0xff}, false},
		{"f4 -7.5", `"<f4"`, `-7.5`, []byte{0, 0, 0xf0, 0xc0}, false},
		{"f8 int", `">f8"`, `1`, []byte{0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, false},
		{"f8 NaN string", `"<f8"`, `"NaN"`, []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, false},
		{"f8 bare NaN", `"<f8"`, `NaN`, []byte{0, 0, 0, 0, 0, 0, 0xf8, 0x7f}, false},
		{"f4 NaN", `"<f4"`, `"NaN"`, []byte{0, 0, 0xc0, 0x7f}, false},
		{"f4 Infinity", `">f4"`, `"Infinity"`, []byte{0x7f, 0x80, 0, 0}, false},
		{"f8 -Infinity", `"<f8"`, `"-Infinity"`, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0xff}, false},
		{"f8 bare -Infinity", `"<f8"`, `-Infinity`, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0xff}, false},
		{"f2 1", `"<f2"`, `1.0`, []byte{0x00, 0x3c}, false},
		{"f2 max", `">f2"`, `65504`, []byte{0x7b, 0xff}, false},
		{"f2 0.1", `"<f2"`, `0.1`, []byte{0x66, 0x2e}, false},
		{"f2 smallest subnormal", `"<f2"`, `5.960464477539063e-08`, []byte{0x01, 0x00}, false},
		{"f2 half of smallest rounds to even 0", `"<f2"`, `2.9802322387695312e-08`, []byte{0, 0}, false},
		{"f2 -2", `"<f2"`, `-2`, []byte{0x00, 0xc0}, false},
		{"f2 NaN", `"<f2"`, `"NaN"`, []byte{0x00, 0x7e}, false},
		{"f2 -Inf", `"<f2"`, `"-Infinity"`, []byte{0x00, 0xfc}, false},
		{"f2 rounds up to 2048", `"<f2"`, `2049`, []byte{0x00, 0x68}, false},
		{"f2 rounds to max normal", `"<f2"`, `65519`, []byte{0xff, 0x7b}, false},
		{"c8", `"<c8"`, `[1.0, "NaN"]`, []byte{0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f}, false},
		{"c16 real only", `">c16"`, `2`, []byte{0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, false},
		{"S empty", `"|S4"`, `""`, []byte{0, 0, 0, 0}, false},
		{"S base64 short", `"|S4"`, `"YWI="`, []byte{'a', 'b', 0, 0}, false},
		{"S base64 full", `"|S2"`, `"YWI="`, []byte{'a', 'b'}, false},
		{"V base64", `"|V3"`, `"AQID"`, []byte{1, 2, 3}, false},
		{"U le", `"<U3"`, `"hé"`, []byte{'h', 0, 0, 0, 0xe9, 0, 0, 0, 0, 0, 0, 0}, false},
		{"U be", `">U1"`, `"a"`, []byte{0, 0, 0, 'a'}, false},
		{"U empty", `"<U2"`, `""`, make([]byte, 8), false},
		{"struct base64", `[["a","<i2"],["b","|u1"]]`, `"AQID"`, []byte{1, 2, 3}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustDType(t, tt.dtype)
			var raw json.RawMessage
			if tt.fill != "" {
				raw = json.RawMessage(tt.fill)
			}
			f, err := ParseFill(raw, d)
			if err != nil {
				t.Fatal(err)
			}
			if f.Null != tt.null || !bytes.Equal(f.Bytes, tt.want) || f.Object != nil {
				t.Fatalf("got %+v, want bytes %v null %v", f, tt.want, tt.null)
			}
		})
	}
}

func TestParseFillObject(t *testing.T) {
	d := mustDType(t, `"|O"`)
	tests := []struct {
		fill string
		want any
		null bool
	}{
		{`0`, "", false},
		{`null`, nil, true},
		{`""`, "", false},
		{`"x"`, "x", false},
		{`1.5`, 1.5, false},
		{`[1]`, []any{int64(1)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.fill, func(t *testing.T) {
			f, err := ParseFill(json.RawMessage(tt.fill), d)
			if err != nil {
				t.Fatal(err)
			}
			if f.Null != tt.null || f.Bytes != nil || jsonText(f.Object) != jsonText(tt.want) {
				t.Fatalf("got %+v, want %v null %v", f, tt.want, tt.null)
			}
		})
	}
}

func TestParseFillErrors(t *testing.T) {
	tests := []struct {
		dtype, fill string
	}{
		{`"|b1"`, `2`}, {`"|b1"`, `"true"`},
		{`"|i1"`, `128`}, {`"|i1"`, `-129`}, {`"|u1"`, `256`}, {`"|u1"`, `-1`},
		{`"<i4"`, `1.5`}, {`"<i4"`, `"NaN"`}, {`"<i4"`, `NaN`}, {`"<i4"`, `Infinity`}, {`"<i8"`, `9223372036854775808`},
		{`"<u8"`, `1e20`}, {`"<i2"`, `"1"`}, {`"<i2"`, `[1]`},
		{`"<f4"`, `1e39`}, {`"<f2"`, `65520`}, {`"<f2"`, `1e10`}, {`"<f8"`, `"nan"`}, {`"<f8"`, `true`},
		{`"<c8"`, `[1]`}, {`"<c8"`, `[1, 2, 3]`}, {`"<c8"`, `"x"`},
		{`"|S2"`, `"YWJj"`}, {`"|S2"`, `"!!"`}, {`"|S2"`, `0`}, {`"|V2"`, `"AQID"`},
		{`"<U1"`, `"ab"`}, {`"<U1"`, `1`},
		{`[["a","<i2"],["b","|u1"]]`, `"AQI="`}, {`[["a","<i2"]]`, `0`},
		{`"<f8"`, `nope`},
	}
	for _, tt := range tests {
		t.Run(tt.dtype+" "+tt.fill, func(t *testing.T) {
			f, err := ParseFill(json.RawMessage(tt.fill), mustDType(t, tt.dtype))
			if !errors.Is(err, ErrFill) {
				t.Fatalf("got (%+v, %v), want ErrFill", f, err)
			}
		})
	}
	if _, err := ParseFill(json.RawMessage(`0`), DType{Kind: KindInt}); !errors.Is(err, ErrFill) {
		t.Fatalf("zero-size dtype: got %v", err)
	}
}

// TestFloat16Exhaustive checks float16Bits against decoding every finite
// half-precision value and the midpoints between neighbours.
func TestFloat16Exhaustive(t *testing.T) {
	decode := func(h uint16) float64 {
		sign := 1.0
		if h&0x8000 != 0 {
			sign = -1
		}
		e, m := int(h>>10)&0x1f, float64(h&0x3ff)
		if e == 0 {
			return sign * m * math.Pow(2, -24)
		}
		return sign * (1 + m/1024) * math.Pow(2, float64(e-15))
	}
	for h := range uint16(0x7c00) {
		f := decode(h)
		if got, ok := float16Bits(f); !ok || got != h {
			t.Fatalf("float16Bits(%g) = %#04x, %v; want %#04x", f, got, ok, h)
		}
		if got, _ := float16Bits(-f); got != h|0x8000 {
			t.Fatalf("float16Bits(%g) = %#04x; want %#04x", -f, got, h|0x8000)
		}
		if h == 0x7bff {
			break
		}
		// The midpoint rounds to the neighbour with an even mantissa.
		mid := (f + decode(h+1)) / 2
		want := h
		if h&1 == 1 {
			want = h + 1
		}
		if got, ok := float16Bits(mid); !ok || got != want {
			t.Fatalf("float16Bits(%g) = %#04x; want %#04x", mid, got, want)
		}
	}
}
