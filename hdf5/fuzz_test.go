package hdf5

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/zarrmeta"
)

// FuzzOpen feeds mutated file images to Open and walks whatever opens:
// superblock, object headers, groups, attributes and small raw data must
// fail with errors, never panic or allocate without bound. Seeds are the
// first KiB of the conformance fixtures and of the embedded test images,
// their end-of-file address patched so they open.
func FuzzOpen(f *testing.F) {
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		b := readFixture(f, name)
		for _, n := range []int{2048, 8192} {
			f.Add(truncate(b, n, true))
		}
	}
	for _, name := range extraNames {
		f.Add(truncate(extraImage(f, name), 4096, true))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		file, err := Open(ctx, &memSource{name: "fuzz", data: data})
		if err != nil {
			return
		}
		// Lookups by name first, before a listing is cached: a symbol
		// table's B-tree is then searched, not walked.
		for _, name := range []string{"", "a", "data", "\xff"} {
			_, _, _ = file.Root().Link(ctx, name)
		}
		_, _ = file.Lookup(ctx, "/a/b/c")
		_ = walkAll(ctx, file, 200)
	})
}

// FuzzMessages feeds mutated message bodies to the message parsers; the
// first byte picks the parser. Seeds are the messages of the fixtures'
// root groups and a few datasets.
func FuzzMessages(f *testing.F) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		file := openBytes(f, name, readFixture(f, name))
		for _, p := range []string{"/", "/misc", "/misc/compound", "/misc/bool", "/acquisition/ElectricalSeries/data", "/misc/vlen_strings"} {
			obj, err := file.Lookup(ctx, p)
			if err != nil {
				f.Fatal(err)
			}
			h, err := file.header(ctx, obj.Addr())
			if err != nil {
				f.Fatal(err)
			}
			for _, m := range h.msgs {
				f.Add(append([]byte{byte(m.typ)}, m.body...))
			}
		}
	}
	// The corners h5py writes: padded and nested compounds, array members,
	// opaque types with its NUMPY: tags, null dataspaces.
	for _, name := range []string{"padded.h5", "arrayfields.h5", "opaque.h5", "null.h5", "committed.h5"} {
		b, err := os.ReadFile(filepath.Join("../testdata/corners", name))
		if err != nil {
			f.Fatal(err)
		}
		file := openBytes(f, name, b)
		root, err := file.Lookup(ctx, "/")
		if err != nil {
			f.Fatal(err)
		}
		links, err := root.(*Group).Members(ctx)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range append(links, Link{Name: "."}) {
			obj, err := file.Lookup(ctx, "/"+l.Name)
			if err != nil {
				continue
			}
			h, err := file.header(ctx, obj.Addr())
			if err != nil {
				f.Fatal(err)
			}
			for _, m := range h.msgs {
				f.Add(append([]byte{byte(m.typ)}, m.body...))
			}
		}
	}
	sizes := fileio.Sizes{OffsetSize: 8, LengthSize: 8}
	file := openBytes(f, "fixture.h5", readFixture(f, "fixture.h5"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		body := data[1:]
		switch data[0] {
		case msgDataspace:
			_, _ = parseDataspace(body, sizes)
		case msgDatatype:
			if dt, err := parseDatatype(fileio.NewDecoder(body, sizes), 0); err == nil {
				checkDescr(t, dt)
				_ = dt.IsBool()
			}
		case msgFill:
			_, _ = parseFill(body)
		case msgFillOld:
			_, _ = parseFillOld(body)
		case msgLink:
			_, _ = parseLink(body, sizes)
		case msgLinkInfo:
			_, _ = parseLinkInfo(body, sizes)
		case msgAttribute:
			if a, err := file.parseAttribute(ctx, body); err == nil {
				_, _ = file.decodeValue(ctx, a.Type, a.Space, a.Raw)
			}
		case msgAttrInfo:
			_, _ = parseAttrInfo(body, sizes)
		}
	})
}

// checkDescr checks that a type's numpy dtype, when it has one, is one
// zarrmeta reads, of the type's size (padding included) unless its elements
// are objects.
func checkDescr(t *testing.T, dt *Datatype) {
	descr, err := dt.NumpyDescr()
	if err != nil {
		return
	}
	raw := json.RawMessage(descr)
	if descr[0] != '[' {
		raw, _ = json.Marshal(descr)
	}
	d, err := zarrmeta.ParseDType(raw)
	if err != nil {
		for _, bound := range []string{"larger than", "too large", "deeper than", "item size"} {
			if strings.Contains(err.Error(), bound) {
				return // zarrmeta's bounds (sizes, nesting, 3-byte integers), narrower than HDF5's
			}
		}
		t.Fatalf("descr %s of a %s type: %v", descr, dt.Class, err)
	}
	if d.Kind != zarrmeta.KindObject && d.Kind != zarrmeta.KindStruct && d.Size != int(dt.Size) {
		t.Fatalf("descr %s has %d bytes, the %s type %d", descr, d.Size, dt.Class, dt.Size)
	}
	if d.Kind == zarrmeta.KindStruct && !strings.Contains(descr, "|O") && d.Size != int(dt.Size) {
		t.Fatalf("descr %s has %d bytes, the compound %d", descr, d.Size, dt.Size)
	}
}
