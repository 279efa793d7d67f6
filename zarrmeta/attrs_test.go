package zarrmeta

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`null`, nil},
		{`true`, true},
		{` false `, false},
		{`0`, int64(0)},
		{`-7`, int64(-7)},
		{`9223372036854775807`, int64(math.MaxInt64)},
		{`-9223372036854775808`, int64(math.MinInt64)},
		{`18446744073709551615`, uint64(math.MaxUint64)},
		{`18446744073709551616`, 18446744073709551616.0},
		{`2.0`, 2.0},
		{`1e3`, 1000.0},
		{`-1.5E-2`, -0.015},
		{`1e400`, math.Inf(1)},
		{`Infinity`, math.Inf(1)},
		{`-Infinity`, math.Inf(-1)},
		{`"a\"b\\c\u00e9\ud83d\ude00"`, "a\"b\\cé😀"},
		{`"NaN"`, "NaN"},
		{`"plain é"`, "plain é"},
		{`[]`, []any{}},
		{`{}`, map[string]any{}},
		{`[1, "Infinity", [-Infinity], {"k": null}]`, []any{int64(1), "Infinity", []any{math.Inf(-1)}, map[string]any{"k": nil}}},
		{`{"a": {"b": [true]}, "NaN": "Infinity"}`, map[string]any{"a": map[string]any{"b": []any{true}}, "NaN": "Infinity"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := DecodeJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, want %#v", got, tt.want)
			}
		})
	}
	if v, err := DecodeJSON([]byte(`[NaN]`)); err != nil || !math.IsNaN(v.([]any)[0].(float64)) {
		t.Fatalf("NaN: %v %v", v, err)
	}
}

func TestDecodeJSONErrors(t *testing.T) {
	tests := []string{
		``, ` `, `{`, `[`, `[1,]`, `{"a":}`, `{"a" 1}`, `{a: 1}`, `{"a": 1,}`, `01`, `-`, `1.`, `.5`, `+1`,
		`1e`, `--1`, `1-2`, `nan`, `NaNa`, `Infinit`, `tru`, `nul`, `"abc`, `"a` + "\n" + `"`, `"\x"`, `"\u12"`,
		`[1] 2`, `'a'`, strings.Repeat("[", 200) + strings.Repeat("]", 200),
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			if v, err := DecodeJSON([]byte(in)); !errors.Is(err, ErrJSON) {
				t.Fatalf("got (%#v, %v), want ErrJSON", v, err)
			}
		})
	}
}

// TestDecodeJSONAgreesWithStdlib checks that, on standard JSON, DecodeJSON
// accepts what encoding/json accepts and yields the same values.
func TestDecodeJSONAgreesWithStdlib(t *testing.T) {
	for name, b := range lindiRefs(t, "") {
		if len(b) > 0 && b[0] == '"' {
			continue // inline chunk data, not metadata
		}
		var std any
		if err := json.Unmarshal(b, &std); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeJSON(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if jsonText(got) != jsonText(std) {
			t.Fatalf("%s: got %s, want %s", name, jsonText(got), jsonText(std))
		}
	}
}

func TestQuoteNonFinite(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a": NaN}`, `{"a": "NaN"}`},
		{`[Infinity,-Infinity, NaN]`, `["Infinity","-Infinity", "NaN"]`},
		{`{"NaN": "x NaN Infinity \" NaN"}`, `{"NaN": "x NaN Infinity \" NaN"}`},
		{`{"a": "\\", "b": NaN}`, `{"a": "\\", "b": "NaN"}`},
		{`[1]`, `[1]`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := string(quoteNonFinite([]byte(tt.in))); got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestParseAttrs(t *testing.T) {
	a, err := ParseAttrs([]byte(`{
		"b": NaN, "a": [1, 2.5, "x"], "inf": -Infinity, "s": "NaN inside", "_ARRAY_DIMENSIONS": ["t"],
		"_SCALAR": true, "_COMPOUND_DTYPE": [["x", "int32"], ["r", "<REFERENCE>"]],
		"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset", "url": "./f.h5", "name": "a/b"},
		"_SOFT_LINK": {"path": "/x/y"}, "_REFERENCE": {"path": "/"},
		"ref": {"_REFERENCE": {"object_id": null, "path": "/acq", "source": ".", "source_object_id": null}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Names(), []string{"_ARRAY_DIMENSIONS", "a", "b", "inf", "ref", "s"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %q, want %q", got, want)
	}
	if a.Len() != 6 {
		t.Fatalf("Len() = %d", a.Len())
	}
	if v, ok := a.Get("b"); !ok || !math.IsNaN(v.(float64)) {
		t.Fatalf("b = %v", v)
	}
	if v, _ := a.Get("inf"); v != math.Inf(-1) {
		t.Fatalf("inf = %v", v)
	}
	if v, _ := a.Get("a"); !reflect.DeepEqual(v, []any{int64(1), 2.5, "x"}) {
		t.Fatalf("a = %#v", v)
	}
	for _, m := range []string{"_SCALAR", "_COMPOUND_DTYPE", "_SOFT_LINK", "_EXTERNAL_ARRAY_LINK", "_REFERENCE", "missing"} {
		if _, ok := a.Get(m); ok {
			t.Errorf("Get(%q) found", m)
		}
	}
	if !a.Scalar() {
		t.Error("Scalar() false")
	}
	if p, ok := a.SoftLink(); !ok || p != "/x/y" {
		t.Errorf("SoftLink() = %q, %v", p, ok)
	}
	if l, ok := a.ExternalArrayLink(); !ok || l != (ExternalArrayLink{"hdf5_dataset", "./f.h5", "a/b"}) {
		t.Errorf("ExternalArrayLink() = %+v, %v", l, ok)
	}
	if d, ok := a.CompoundDType(); !ok || d.Size != 12 || d.Fields[1].DType.Kind != KindReference {
		t.Errorf("CompoundDType() = %+v, %v", d, ok)
	}
	v, _ := a.Get("ref")
	if r, ok, err := AsReference(v); err != nil || !ok || r.Path != "/acq" || r.Source != "." || r.ObjectID != "" {
		t.Errorf("AsReference(ref) = %+v, %v, %v", r, ok, err)
	}
	out, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"b":"NaN"`) || !strings.Contains(string(out), `"inf":"-Infinity"`) || !strings.Contains(string(out), `"_SCALAR":true`) {
		t.Fatalf("MarshalJSON: %s", out)
	}
}

func TestAttrsZero(t *testing.T) {
	var a Attrs
	if len(a.Names()) != 0 || a.Len() != 0 || a.Scalar() {
		t.Fatal("zero Attrs not empty")
	}
	if _, ok := a.Get("x"); ok {
		t.Fatal("zero Attrs has x")
	}
	if _, ok := a.SoftLink(); ok {
		t.Fatal("zero Attrs has a soft link")
	}
	if _, ok := a.ExternalArrayLink(); ok {
		t.Fatal("zero Attrs has an external link")
	}
	if _, ok := a.CompoundDType(); ok {
		t.Fatal("zero Attrs has a compound dtype")
	}
	if b, err := json.Marshal(a); err != nil || string(b) != "{}" {
		t.Fatalf("MarshalJSON = %s, %v", b, err)
	}
}

func TestParseAttrsErrors(t *testing.T) {
	tests := []string{
		`[]`, `"x"`, `{`, `{"a": nan}`,
		`{"_SCALAR": 1}`,
		`{"_SOFT_LINK": "/x"}`, `{"_SOFT_LINK": {"path": 3}}`, `{"_SOFT_LINK": {}}`,
		`{"_EXTERNAL_ARRAY_LINK": {"link_type": "zarr", "url": "u", "name": "n"}}`,
		`{"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset", "name": "n"}}`,
		`{"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset", "url": "", "name": "n"}}`,
		`{"_EXTERNAL_ARRAY_LINK": []}`,
		`{"_COMPOUND_DTYPE": []}`, `{"_COMPOUND_DTYPE": [["x"]]}`, `{"_COMPOUND_DTYPE": [["x", "int33"]]}`,
		`{"_COMPOUND_DTYPE": [["x", "int32"], ["x", "int8"]]}`, `{"_COMPOUND_DTYPE": [["", "int32"]]}`,
		`{"_COMPOUND_DTYPE": [[1, "int32"]]}`, `{"_COMPOUND_DTYPE": "int32"}`,
		`{"_DATATYPE": "|u1"}`, `{"_DATATYPE": {}}`, `{"_DATATYPE": {"dtype": "|u3"}}`,
		`{"_DATATYPE": {"dtype": "|u1", "unreadable": "x"}}`, `{"_DATATYPE": {"unreadable": ""}}`,
		`{"_DATATYPE": {"dtype": "|u1", "enum": []}}`, `{"_DATATYPE": {"dtype": "|u1", "enum": {"A": 1.5}}}`,
		`{"_DATATYPE": {"dtype": "<u8", "enum": {"A": 18446744073709551615}}}`,
	}
	for _, in := range tests {
		t.Run(in, func(t *testing.T) {
			if a, err := ParseAttrs([]byte(in)); !errors.Is(err, ErrAttrs) {
				t.Fatalf("got (%+v, %v), want ErrAttrs", a, err)
			}
		})
	}
}

func TestParseCompoundDType(t *testing.T) {
	v, _ := DecodeJSON([]byte(`[["b", "bool"], ["i1", "int8"], ["u2", "uint16"], ["i4", "int32"], ["f4", "float32"],
		["f8", "float64"], ["c", "complex128"], ["s", "|S5"], ["be", ">i4"], ["r", "<REFERENCE>"], ["h", "float16"], ["o", "object"]]`))
	d, err := ParseCompoundDType(v)
	if err != nil {
		t.Fatal(err)
	}
	type f struct {
		name   string
		kind   Kind
		size   int
		offset int
		order  ByteOrder
	}
	want := []f{{"b", KindBool, 1, 0, NoOrder}, {"i1", KindInt, 1, 1, NoOrder}, {"u2", KindUint, 2, 2, NativeOrder},
		{"i4", KindInt, 4, 4, NativeOrder}, {"f4", KindFloat, 4, 8, NativeOrder}, {"f8", KindFloat, 8, 12, NativeOrder},
		{"c", KindComplex, 16, 20, NativeOrder}, {"s", KindBytes, 5, 36, NoOrder}, {"be", KindInt, 4, 41, BigEndian},
		{"r", KindReference, 8, 45, NoOrder}, {"h", KindFloat, 2, 53, NativeOrder}, {"o", KindObject, 8, 55, NoOrder}}
	if d.Kind != KindStruct || d.Size != 63 || len(d.Fields) != len(want) {
		t.Fatalf("got %+v", d)
	}
	for i, w := range want {
		g := d.Fields[i]
		if g.Name != w.name || g.DType.Kind != w.kind || g.DType.Size != w.size || g.Offset != w.offset || g.DType.Order != w.order {
			t.Errorf("field %d = %+v, want %+v", i, g, w)
		}
	}
	if !strings.Contains(d.String(), "('r', '|O')") {
		t.Errorf("String() = %s", d.String())
	}
}

func TestAsReference(t *testing.T) {
	tests := []struct {
		in      string
		want    LINDIRef
		ok, bad bool
	}{
		{`{"_REFERENCE": {"object_id": "abc", "path": "/a/b", "source": ".", "source_object_id": "def"}}`,
			LINDIRef{Path: "/a/b", Source: ".", ObjectID: "abc", SourceObjectID: "def"}, true, false},
		{`{"_REFERENCE": {"path": "/a"}, "other": 1}`, LINDIRef{Path: "/a"}, true, false},
		{`{"_REFERENCE": {"path": ""}}`, LINDIRef{}, true, true},
		{`{"_REFERENCE": {"source": "."}}`, LINDIRef{}, true, true},
		{`{"_REFERENCE": {"path": "/a", "object_id": 5}}`, LINDIRef{}, true, true},
		{`{"_REFERENCE": "/a"}`, LINDIRef{}, true, true},
		{`{"path": "/a"}`, LINDIRef{}, false, false},
		{`"/a"`, LINDIRef{}, false, false},
		{`[{"_REFERENCE": {"path": "/a"}}]`, LINDIRef{}, false, false},
		{`null`, LINDIRef{}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			v, err := DecodeJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			r, ok, err := AsReference(v)
			if ok != tt.ok || (err != nil) != tt.bad || r != tt.want {
				t.Fatalf("got %+v, %v, %v", r, ok, err)
			}
			if err != nil && !errors.Is(err, ErrReference) {
				t.Fatalf("error %v is not ErrReference", err)
			}
		})
	}
	// Values decoded by encoding/json (as codecs may do) work too.
	var v any
	if err := json.Unmarshal([]byte(`{"_REFERENCE": {"path": "/x", "object_id": null}}`), &v); err != nil {
		t.Fatal(err)
	}
	if r, ok, err := AsReference(v); !ok || err != nil || r.Path != "/x" {
		t.Fatalf("encoding/json value: %+v %v %v", r, ok, err)
	}
}

func TestParseGroup(t *testing.T) {
	tests := []struct {
		in string
		ok bool
	}{
		{`{"zarr_format": 2}`, true},
		{`{"zarr_format": 2, "extra": NaN}`, true},
		{`{"zarr_format": 3}`, false},
		{`{}`, false},
		{`[]`, false},
		{`{"zarr_format": "2"}`, false},
		{``, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			err := ParseGroup([]byte(tt.in))
			if (err == nil) != tt.ok || err != nil && !errors.Is(err, ErrGroup) {
				t.Fatalf("got %v", err)
			}
		})
	}
}

func TestFixtureMetadata(t *testing.T) {
	t.Run("zgroup", func(t *testing.T) {
		docs := zarrFiles(t, ".zgroup")
		for k, v := range lindiRefs(t, ".zgroup") {
			docs[k] = v
		}
		for name, b := range docs {
			if err := ParseGroup(b); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	})
	t.Run("zattrs", func(t *testing.T) {
		docs := zarrFiles(t, ".zattrs")
		for k, v := range lindiRefs(t, ".zattrs") {
			docs[k] = v
		}
		for name, b := range docs {
			a, err := ParseAttrs(b)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			// Every user attribute is reachable and no marker leaks.
			for _, n := range a.Names() {
				if _, ok := a.Get(n); !ok || IsMarker(n) {
					t.Errorf("%s: attribute %q", name, n)
				}
			}
		}
	})
}

func TestFixtureLINDIMarkers(t *testing.T) {
	attrs := map[string]Attrs{}
	for name, b := range lindiRefs(t, ".zattrs") {
		a, err := ParseAttrs(b)
		if err != nil {
			t.Fatal(err)
		}
		attrs[name] = a
	}
	get := func(file, key string) Attrs {
		t.Helper()
		a, ok := attrs[file+":"+key+"/.zattrs"]
		if !ok {
			t.Fatalf("no %s in %s", key, file)
		}
		return a
	}
	for _, file := range []string{"fixture.lindi.json", "fixture.extlink.lindi.json"} {
		if a := get(file, "misc/scalar_int"); !a.Scalar() || len(a.Names()) != 0 {
			t.Errorf("%s scalar_int: %v %q", file, a.Scalar(), a.Names())
		}
		if p, ok := get(file, "misc/soft_link_to_data").SoftLink(); !ok || p != "/acquisition/ElectricalSeries/data" {
			t.Errorf("%s soft link: %q", file, p)
		}
		if d, ok := get(file, "misc/compound").CompoundDType(); !ok || len(d.Fields) != 2 || d.Fields[1].Name != "y" || d.Fields[1].DType.Kind != KindFloat {
			t.Errorf("%s compound: %+v", file, d)
		}
		if l, ok := get(file, "misc/over_1000_chunks").ExternalArrayLink(); !ok || l.Name != "misc/over_1000_chunks" || l.URL != "./fixture.h5" {
			t.Errorf("%s external link: %+v", file, l)
		}
		m := get(file, "misc")
		v, _ := m.Get("ref_attr")
		if r, ok, err := AsReference(v); !ok || err != nil || r.Path != "/acquisition/ElectricalSeries" {
			t.Errorf("%s ref_attr: %+v %v %v", file, r, ok, err)
		}
		if v, _ := m.Get("int_attr"); v != int64(7) {
			t.Errorf("%s int_attr = %#v", file, v)
		}
		if v, _ := m.Get("float_attr"); v != 2.5 {
			t.Errorf("%s float_attr = %#v", file, v)
		}
	}
	external := 0
	for _, a := range attrs {
		if _, ok := a.ExternalArrayLink(); ok {
			external++
		}
	}
	if external != 7 {
		t.Errorf("%d external array links, want 7 (1 + 6)", external)
	}
}

// TestParseAttrsNumberKinds checks that an attribute's number is typed by its
// spelling, as Python's json (and so Python lindi) types it: a whole-number
// float written as Python writes it (30000.0, 1e+16) stays a float64, an
// integer literal is an int64.
func TestParseAttrsNumberKinds(t *testing.T) {
	a, err := ParseAttrs([]byte(`{"rate": 30000.0, "n": 30000, "tiny": 1e-05, "big": 1.5e+20,
		"e16": 1e+16, "neg": -1.0, "zero": -0.0, "list": [1.0, 2.0], "ints": [1, 2]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"rate": 30000.0, "n": int64(30000), "tiny": 1e-05, "big": 1.5e20, "e16": 1e16, "neg": -1.0,
		"zero": math.Copysign(0, -1), "list": []any{1.0, 2.0}, "ints": []any{int64(1), int64(2)},
	}
	for k, w := range want {
		got, _ := a.Get(k)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v (%T), want %#v (%T)", k, got, got, w, w)
		}
	}
	if z, _ := a.Get("zero"); !math.Signbit(z.(float64)) {
		t.Error("-0.0 lost its sign")
	}
}

func TestCommittedType(t *testing.T) {
	tests := []struct {
		in   string
		want CommittedType
	}{
		{`{"dtype": "<i8"}`, CommittedType{DType: DType{Kind: KindInt, Order: LittleEndian, Size: 8}}},
		{`{"dtype": "|u1", "enum": {"RED": 0, "BLUE": 2}}`,
			CommittedType{DType: DType{Kind: KindUint, Size: 1}, Enum: map[string]int64{"RED": 0, "BLUE": 2}}},
		{`{"dtype": [["major", "<i4"], ["", "|V4"]]}`, CommittedType{DType: DType{Kind: KindStruct, Size: 8,
			Fields: []Field{{Name: "major", DType: DType{Kind: KindInt, Order: LittleEndian, Size: 4}}}}}},
		{`{"unreadable": "a time type"}`, CommittedType{Unreadable: "a time type"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			a, err := ParseAttrs([]byte(`{"about": "x", "_DATATYPE": ` + tt.in + `}`))
			if err != nil {
				t.Fatal(err)
			}
			got, ok := a.Datatype()
			if !ok || !got.DType.Equal(tt.want.DType) || !reflect.DeepEqual(got.Enum, tt.want.Enum) || got.Unreadable != tt.want.Unreadable {
				t.Fatalf("got %+v %v, want %+v", got, ok, tt.want)
			}
			if names := a.Names(); !reflect.DeepEqual(names, []string{"about"}) {
				t.Fatalf("names %q: the marker is not a user attribute", names)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			again, err := ParseAttrs([]byte(`{"_DATATYPE": ` + string(b) + `}`))
			if c, _ := again.Datatype(); err != nil || !c.DType.Equal(got.DType) || !reflect.DeepEqual(c.Enum, got.Enum) {
				t.Fatalf("round trip through %s: %+v, %v", b, c, err)
			}
		})
	}
	if _, ok := (Attrs{}).Datatype(); ok {
		t.Fatal("the zero Attrs has a datatype")
	}
}

func TestOpaque(t *testing.T) {
	m8 := DType{Kind: KindDatetime, Order: LittleEndian, Size: 8, Unit: "s"}
	v2 := DType{Kind: KindVoid, Size: 2}
	tests := []struct {
		o    Opaque
		json string
	}{
		{Opaque{DType: m8, Items: []any{int64(1645568542)}}, `["_OPAQUE","<M8[s]","()","1645568542"]`},
		{Opaque{DType: DType{Kind: KindTimedelta, Order: LittleEndian, Size: 8, Unit: "ms"}, Shape: []int{2},
			Items: []any{int64(1500), int64(math.MinInt64)}}, `["_OPAQUE","<m8[ms]","(2,)","1500","-9223372036854775808"]`},
		{Opaque{DType: v2, Shape: []int{2, 1}, Items: []any{[]byte{0xde, 0xad}, []byte{0, 1}}}, `["_OPAQUE","|V2","(2, 1)","dead","0001"]`},
		{Opaque{DType: v2, Shape: []int{0}, Items: []any{}}, `["_OPAQUE","|V2","(0,)"]`},
		{Opaque{DType: v2, Shape: []int{2, 0}, Items: []any{}}, `["_OPAQUE","|V2","(2, 0)"]`},
	}
	for _, tt := range tests {
		t.Run(tt.json, func(t *testing.T) {
			v, err := tt.o.JSON()
			if err != nil {
				t.Fatal(err)
			}
			b, err := marshalPlain(v)
			if err != nil || string(b) != tt.json {
				t.Fatalf("JSON %s, %v; want %s", b, err, tt.json)
			}
			dec, err := DecodeJSON(b)
			if err != nil {
				t.Fatal(err)
			}
			got, ok, err := AsOpaque(dec)
			if !ok || err != nil || !got.DType.Equal(tt.o.DType) || !reflect.DeepEqual(got.Shape, tt.o.Shape) || !reflect.DeepEqual(got.Items, tt.o.Items) {
				t.Fatalf("AsOpaque: %+v %v %v, want %+v", got, ok, err, tt.o)
			}
		})
	}
	for _, in := range []string{`["_OPAQUE"]`, `["_OPAQUE", 1, "()", "2"]`, `["_OPAQUE", "<i8", "()", "2"]`, `["_OPAQUE", "<M8[s]", "()", "x"]`,
		`["_OPAQUE", "|V2", "()", "abc"]`, `["_OPAQUE", "|V2", "()", "aabbcc"]`, `["_OPAQUE", "|V2", "(2,)", "aabb"]`, `["_OPAQUE", "|V2", "(1,)", 1]`,
		`["_OPAQUE", "<M8[s]", "()", "1", "2"]`, `["_OPAQUE", "<M8[s]", "()"]`, `["_OPAQUE", "<M8[s]", "2", "1", "2"]`,
		`["_OPAQUE", "<M8[s]", "(-1,)"]`, `["_OPAQUE", "<M8[s]", "(4611686018427387904, 4)"]`, `["_OPAQUE", "<M8[s]", ["(1,)"], "1"]`} {
		v, err := DecodeJSON([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if o, ok, err := AsOpaque(v); !ok || !errors.Is(err, ErrAttrs) {
			t.Errorf("%s: %+v %v %v, want ErrAttrs", in, o, ok, err)
		}
	}
	for _, in := range []any{"_OPAQUE", []any{"x", "|V2", "()", "aabb"}, []any{}, map[string]any{"_OPAQUE": 1}} {
		if _, ok, err := AsOpaque(in); ok || err != nil {
			t.Errorf("%v: recognised (%v)", in, err)
		}
	}
	if _, err := (Opaque{DType: DType{Kind: KindInt, Size: 8}, Items: []any{int64(1)}}).JSON(); err == nil {
		t.Error("an integer dtype written as opaque")
	}
	if _, err := (Opaque{DType: v2, Items: []any{[]byte{1}}}).JSON(); err == nil {
		t.Error("a 1-byte item written as |V2")
	}
}
