package zarrmeta

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"testing"
)

// nonNative is the typestr order prefix that is not the machine's.
var nonNative, native = func() (string, string) {
	if NativeOrder == LittleEndian {
		return ">", "<"
	}
	return "<", ">"
}()

func mustDType(t testing.TB, s string) DType {
	t.Helper()
	d, err := ParseDType(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSwapToNative(t *testing.T) {
	seq := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i + 1)
		}
		return b
	}
	tests := []struct {
		name  string
		dtype string
		in    []byte
		want  []byte
		swap  bool
	}{
		{"i2", `"` + nonNative + `i2"`, seq(4), []byte{2, 1, 4, 3}, true},
		{"u4", `"` + nonNative + `u4"`, seq(8), []byte{4, 3, 2, 1, 8, 7, 6, 5}, true},
		{"f8", `"` + nonNative + `f8"`, seq(8), []byte{8, 7, 6, 5, 4, 3, 2, 1}, true},
		{"f2", `"` + nonNative + `f2"`, seq(2), []byte{2, 1}, true},
		{"c8 halves", `"` + nonNative + `c8"`, seq(8), []byte{4, 3, 2, 1, 8, 7, 6, 5}, true},
		{"c16 halves", `"` + nonNative + `c16"`, seq(16), []byte{8, 7, 6, 5, 4, 3, 2, 1, 16, 15, 14, 13, 12, 11, 10, 9}, true},
		{"U2 code units", `"` + nonNative + `U2"`, seq(8), []byte{4, 3, 2, 1, 8, 7, 6, 5}, true},
		{"native i4 untouched", `"` + native + `i4"`, seq(4), seq(4), false},
		{"i1 untouched", `"|i1"`, seq(3), seq(3), false},
		{"S4 untouched", `"|S4"`, seq(4), seq(4), false},
		{"struct mixed", `[["a","` + nonNative + `i2"],["s","|S2"],["b","` + native + `i2"],["c","` + nonNative + `i2",[2]]]`,
			seq(20), []byte{2, 1, 3, 4, 5, 6, 8, 7, 10, 9, 12, 11, 13, 14, 15, 16, 18, 17, 20, 19}, true},
		{"nested struct subarray", `[["p",[["x","|u1"],["y","` + nonNative + `u2"]],[2]]]`,
			seq(12), []byte{1, 3, 2, 4, 6, 5, 7, 9, 8, 10, 12, 11}, true},
		{"native struct", `[["a","` + native + `i4"],["b","|b1"]]`, seq(10), seq(10), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := mustDType(t, tt.dtype)
			if d.NeedsSwap() != tt.swap {
				t.Fatalf("NeedsSwap() = %v, want %v", d.NeedsSwap(), tt.swap)
			}
			buf := bytes.Clone(tt.in)
			if err := d.SwapToNative(buf); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf, tt.want) {
				t.Fatalf("got %v, want %v", buf, tt.want)
			}
			n := d.Native()
			if n.NeedsSwap() {
				t.Fatalf("Native() %s still needs a swap", n)
			}
			if d.NeedsSwap() != tt.swap {
				t.Fatal("Native() modified its receiver")
			}
		})
	}
}

func TestSwapToNativeValue(t *testing.T) {
	d := mustDType(t, `">f8"`)
	buf := binary.BigEndian.AppendUint64(nil, 0x400921FB54442D18) // pi
	if err := d.SwapToNative(buf); err != nil {
		t.Fatal(err)
	}
	if binary.NativeEndian.Uint64(buf) != 0x400921FB54442D18 {
		t.Fatalf("got %x", buf)
	}
}

func TestSwapToNativeErrors(t *testing.T) {
	tests := []struct {
		name string
		d    DType
		n    int
	}{
		{"partial item", mustDType(t, `"`+nonNative+`i4"`), 6},
		{"zero size", DType{Kind: KindInt, Order: BigEndian}, 4},
		{"field past item", DType{Kind: KindStruct, Size: 4, Fields: []Field{{Name: "a", DType: DType{Kind: KindInt, Order: swapOrder(), Size: 4}, Offset: 2}}}, 8},
		{"subarray past item", DType{Kind: KindStruct, Size: 4, Fields: []Field{{Name: "a", DType: DType{Kind: KindInt, Order: swapOrder(), Size: 2}, Shape: []int{3}}}}, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.d.SwapToNative(make([]byte, tt.n)); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func swapOrder() ByteOrder {
	if NativeOrder == LittleEndian {
		return BigEndian
	}
	return LittleEndian
}

func BenchmarkSwapToNative(b *testing.B) {
	for _, typ := range []string{"i2", "f4", "f8"} {
		b.Run(typ, func(b *testing.B) {
			d := mustDType(b, `"`+nonNative+typ+`"`)
			buf := make([]byte, 1<<20)
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if err := d.SwapToNative(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("struct", func(b *testing.B) {
		d := mustDType(b, `[["a","`+nonNative+`i4"],["b","`+nonNative+`f8"],["c","|S4"]]`)
		buf := make([]byte, 16<<16)
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			if err := d.SwapToNative(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestSwapToNativeLargeNested(t *testing.T) {
	// 300 nested items exceed maxSpans, so this takes the field-by-field path.
	d := mustDType(t, `[["p",[["x","|u1"],["y","`+nonNative+`u2"]],[300]],["z","`+nonNative+`u4"]]`)
	if d.Size != 904 {
		t.Fatalf("size %d", d.Size)
	}
	buf := make([]byte, 2*d.Size)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	want := bytes.Clone(buf)
	for item := 0; item < len(want); item += d.Size {
		for e := range 300 {
			y := want[item+3*e+1:]
			y[0], y[1] = y[1], y[0]
		}
		z := want[item+900:]
		z[0], z[1], z[2], z[3] = z[3], z[2], z[1], z[0]
	}
	if err := d.SwapToNative(buf); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, want) {
		t.Fatal("nested swap differs")
	}
}
