package zarrmeta

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/lindigo/lindi/internal/npy"
)

func TestParseDTypeSimple(t *testing.T) {
	tests := []struct {
		in    string
		kind  Kind
		order ByteOrder
		size  int
		str   string // String(); "" means same as in
	}{
		{"|b1", KindBool, NoOrder, 1, ""},
		{"<b1", KindBool, NoOrder, 1, "|b1"},
		{"|i1", KindInt, NoOrder, 1, ""},
		{"|u1", KindUint, NoOrder, 1, ""},
		{"<i2", KindInt, LittleEndian, 2, ""},
		{">i2", KindInt, BigEndian, 2, ""},
		{"<i4", KindInt, LittleEndian, 4, ""},
		{">i4", KindInt, BigEndian, 4, ""},
		{"<i8", KindInt, LittleEndian, 8, ""},
		{"<u2", KindUint, LittleEndian, 2, ""},
		{">u4", KindUint, BigEndian, 4, ""},
		{"<u8", KindUint, LittleEndian, 8, ""},
		{"<f2", KindFloat, LittleEndian, 2, ""},
		{"<f4", KindFloat, LittleEndian, 4, ""},
		{">f8", KindFloat, BigEndian, 8, ""},
		{"<c8", KindComplex, LittleEndian, 8, ""},
		{">c16", KindComplex, BigEndian, 16, ""},
		{"|S8", KindBytes, NoOrder, 8, ""},
		{"|S1", KindBytes, NoOrder, 1, ""},
		{"|a3", KindBytes, NoOrder, 3, "|S3"},
		{"<U17", KindUnicode, LittleEndian, 68, ""},
		{">U2", KindUnicode, BigEndian, 8, ""},
		{"|O", KindObject, NoOrder, 8, ""},
		{"|O8", KindObject, NoOrder, 8, "|O"},
		{"|V12", KindVoid, NoOrder, 12, ""},
		{"=i4", KindInt, NativeOrder, 4, map[ByteOrder]string{LittleEndian: "<i4", BigEndian: ">i4"}[NativeOrder]},
		{"f8", KindFloat, NativeOrder, 8, map[ByteOrder]string{LittleEndian: "<f8", BigEndian: ">f8"}[NativeOrder]},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			raw, _ := json.Marshal(tt.in)
			d, err := ParseDType(raw)
			if err != nil {
				t.Fatal(err)
			}
			if d.Kind != tt.kind || d.Order != tt.order || d.Size != tt.size || d.Fields != nil {
				t.Fatalf("got %+v, want kind %s order %d size %d", d, tt.kind, tt.order, tt.size)
			}
			want := tt.str
			if want == "" {
				want = tt.in
			}
			if d.String() != want {
				t.Fatalf("String() = %q, want %q", d.String(), want)
			}
			checkRoundTrip(t, d)
		})
	}
}

// checkRoundTrip parses d's JSON form back and checks String() against
// numpy's header grammar via the npy package.
func checkRoundTrip(t *testing.T, d DType) {
	t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseDType(raw)
	if err != nil {
		t.Fatalf("ParseDType(%s): %v", raw, err)
	}
	if !back.Equal(d) {
		t.Fatalf("JSON round trip of %s: got %+v, want %+v", raw, back, d)
	}
	if hasObject(d) {
		return // npy refuses object dtypes
	}
	var buf bytes.Buffer
	a := &npy.Array{Descr: d.String(), Shape: []int{2}, Data: make([]byte, 2*d.Size)}
	if err := npy.Write(&buf, a); err != nil {
		t.Fatalf("npy rejects String() %q: %v", d.String(), err)
	}
	if _, err := npy.Read(&buf); err != nil {
		t.Fatalf("npy rejects String() %q: %v", d.String(), err)
	}
	// String() read back through numpy's header grammar gives d again.
	js, err := npy.DescrJSON(d.String())
	if err != nil {
		t.Fatal(err)
	}
	if back, err := ParseDType(js); err != nil || !back.Equal(d) {
		t.Fatalf("String() round trip via %s: %+v, %v", js, back, err)
	}
}

// hasObject reports whether d is or contains an object dtype.
func hasObject(d DType) bool {
	if d.Kind == KindObject || d.Kind == KindReference {
		return true
	}
	for _, f := range d.Fields {
		if hasObject(f.DType) {
			return true
		}
	}
	return false
}

func TestParseDTypeStruct(t *testing.T) {
	i4 := DType{Kind: KindInt, Order: LittleEndian, Size: 4}
	f8 := DType{Kind: KindFloat, Order: LittleEndian, Size: 8}
	s3 := DType{Kind: KindBytes, Size: 3}
	tests := []struct {
		name string
		in   string
		want DType
		str  string
	}{
		{"plain", `[["a","<i4"],["b","<f8"]]`,
			DType{Kind: KindStruct, Size: 12, Fields: []Field{{Name: "a", DType: i4}, {Name: "b", DType: f8, Offset: 4}}},
			"[('a', '<i4'), ('b', '<f8')]"},
		{"subarray", `[["a","<i4"],["b","<f8",[2]]]`,
			DType{Kind: KindStruct, Size: 20, Fields: []Field{{Name: "a", DType: i4}, {Name: "b", DType: f8, Offset: 4, Shape: []int{2}}}},
			"[('a', '<i4'), ('b', '<f8', (2,))]"},
		{"2-d subarray as int and list", `[["a","<i4",3],["b","|S3",[2,2]]]`,
			DType{Kind: KindStruct, Size: 24, Fields: []Field{{Name: "a", DType: i4, Shape: []int{3}}, {Name: "b", DType: s3, Offset: 12, Shape: []int{2, 2}}}},
			"[('a', '<i4', (3,)), ('b', '|S3', (2, 2))]"},
		{"padding", `[["a","<i4"],["","|V4"],["b","<f8"],["","|V2"]]`,
			DType{Kind: KindStruct, Size: 18, Fields: []Field{{Name: "a", DType: i4}, {Name: "b", DType: f8, Offset: 8}}},
			"[('a', '<i4'), ('', '|V4'), ('b', '<f8'), ('', '|V2')]"},
		{"nested", `[["p",[["x","|S3"],["y","<i4"]],[2]],["q","<f8"]]`,
			DType{Kind: KindStruct, Size: 22, Fields: []Field{
				{Name: "p", DType: DType{Kind: KindStruct, Size: 7, Fields: []Field{{Name: "x", DType: s3}, {Name: "y", DType: i4, Offset: 3}}}, Shape: []int{2}},
				{Name: "q", DType: f8, Offset: 14}}},
			"[('p', [('x', '|S3'), ('y', '<i4')], (2,)), ('q', '<f8')]"},
		{"title and quote in name", `[[["a title","it's"],"<i4"]]`,
			DType{Kind: KindStruct, Size: 4, Fields: []Field{{Name: "it's", DType: i4}}},
			`[('it\'s', '<i4')]`},
		{"object field", `[["a","|O"],["b","<i4"]]`,
			DType{Kind: KindStruct, Size: 12, Fields: []Field{{Name: "a", DType: DType{Kind: KindObject, Size: 8}}, {Name: "b", DType: i4, Offset: 8}}},
			"[('a', '|O'), ('b', '<i4')]"},
		{"empty subshape", `[["a","<i4",[]]]`,
			DType{Kind: KindStruct, Size: 4, Fields: []Field{{Name: "a", DType: i4}}},
			"[('a', '<i4')]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDType(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !d.Equal(tt.want) {
				t.Fatalf("got %+v, want %+v", d, tt.want)
			}
			if d.String() != tt.str {
				t.Fatalf("String() = %s, want %s", d.String(), tt.str)
			}
			checkRoundTrip(t, d)
		})
	}
}

func TestParseDTypeErrors(t *testing.T) {
	tests := []string{
		``, `null`, `5`, `{}`, `""`, `"<"`, `"<i"`, `"<i3"`, `"<i16"`, `"<f16"`, `"<f1"`, `"<c4"`,
		`"|b2"`, `"|i2"`, `"|f8"`, `"|U4"`, `"<S0"`, `"<U0"`, `"<i+4"`, `"<i04"`, `"<x4"`, `"<M8"`, `"<M4[s]"`, `"<m8[10s]"`, `"|M8[s]"`,
		`"<m8"`, `"|O4"`, `"|V99999999999"`, `"|U999999999"`, `[]`, `[["a"]]`, `[["a","<i4","x"]]`,
		`[["a","<i4",[-1]]]`, `[["a","<i4"],["a","<f8"]]`, `[[1,"<i4"]]`, `[["","<i4"]]`, `[["","|V4"]]`,
		`[["a","|V1024",[1024,1024,1024]]]`, `[["a",[["b","<i4"]],[1073741824]]]`, `[["a","<i4",[1,2],4]]`,
		`[["a","<i4"]] x`, `[["a","|S1",[0]]]`,
		`[["a",[["b",[["c",[["d",[["e",[["f",[["g",[["h",[["i",[["j",[["k",[["l",[["m",[["n",[["o",[["p",[["q","<i4"]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			d, err := ParseDType(json.RawMessage(in))
			if !errors.Is(err, ErrDType) {
				t.Fatalf("got (%+v, %v), want ErrDType", d, err)
			}
		})
	}
}

func TestMarshalJSONPlain(t *testing.T) {
	d := mustDType(t, `[["a","<i4"],["b",[["c",">f8"]]]]`)
	b, err := d.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if want := `[["a","<i4"],["b",[["c",">f8"]]]]`; string(b) != want {
		t.Fatalf("got %s, want %s", b, want)
	}
}

func TestKindString(t *testing.T) {
	for k := KindInvalid; k <= KindReference+1; k++ {
		if k.String() == "" {
			t.Errorf("Kind(%d) has no name", k)
		}
	}
	if KindStruct.String() != "struct" || Kind(99).String() != "Kind(99)" {
		t.Fatal("unexpected kind names")
	}
	if LittleEndian.String()+BigEndian.String()+NoOrder.String() != "<>|" {
		t.Fatal("unexpected byte order names")
	}
}

func TestField(t *testing.T) {
	d, err := ParseDType(json.RawMessage(`[["a","<i4"],["b","<f8",[2,3]]]`))
	if err != nil {
		t.Fatal(err)
	}
	f, ok := d.Field("b")
	if !ok || f.Offset != 4 || f.Count() != 6 {
		t.Fatalf("Field(b) = %+v, %v", f, ok)
	}
	if _, ok := d.Field("c"); ok {
		t.Fatal("Field(c) found")
	}
}

func TestParseTimeDTypes(t *testing.T) {
	for _, tc := range []struct {
		text string
		want DType
	}{
		{`"<M8[s]"`, DType{Kind: KindDatetime, Order: LittleEndian, Size: 8, Unit: "s"}},
		{`">M8[D]"`, DType{Kind: KindDatetime, Order: BigEndian, Size: 8, Unit: "D"}},
		{`"<m8[ms]"`, DType{Kind: KindTimedelta, Order: LittleEndian, Size: 8, Unit: "ms"}},
	} {
		got, err := ParseDType([]byte(tc.text))
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseDType(%s) = %+v, %v; want %+v", tc.text, got, err, tc.want)
		}
		if s, _ := got.MarshalJSON(); string(s) != tc.text {
			t.Errorf("%s marshals as %s", tc.text, s)
		}
	}
	f, err := ParseFill([]byte("-9223372036854775808"), DType{Kind: KindDatetime, Order: LittleEndian, Size: 8, Unit: "s"})
	if err != nil || !bytes.Equal(f.Bytes, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}) {
		t.Errorf("NaT fill = %v, %v", f.Bytes, err)
	}
}
