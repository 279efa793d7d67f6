package hdf5

import (
	"context"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// BenchmarkOpenAndList opens a fixture held in memory and lists every
// object and attribute; bytes are the metadata bytes the listing reads.
func BenchmarkOpenAndList(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		b.Run(name, func(b *testing.B) {
			data := readFixture(b, name)
			f := openBytes(b, name, data)
			if _, err := listing(ctx, f); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(f.Stats().BytesRead)
			b.ReportAllocs()
			for b.Loop() {
				f, err := Open(ctx, &memSource{name: name, data: data})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := listing(ctx, f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLookup resolves a deep path through a soft link on an open
// file (caches warm).
func BenchmarkLookup(b *testing.B) {
	ctx := context.Background()
	f := openBytes(b, "fixture.h5", readFixture(b, "fixture.h5"))
	const path = "/acquisition/ElectricalSeries/electrode_group_link"
	b.SetBytes(int64(len(path)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.Lookup(ctx, path); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseDatatype parses the compound datatype of misc/compound.
func BenchmarkParseDatatype(b *testing.B) {
	ctx := context.Background()
	f := openBytes(b, "fixture.h5", readFixture(b, "fixture.h5"))
	ds, err := f.Dataset(ctx, "misc/compound")
	if err != nil {
		b.Fatal(err)
	}
	h, err := f.header(ctx, ds.Addr())
	if err != nil {
		b.Fatal(err)
	}
	m, _ := h.first(msgDatatype)
	b.SetBytes(int64(len(m.body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseDatatype(fileio.NewDecoder(m.body, f.r.Sizes()), 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadVlen resolves the global heap IDs of misc/vlen_strings.
func BenchmarkReadVlen(b *testing.B) {
	ctx := context.Background()
	f := openBytes(b, "fixture.h5", readFixture(b, "fixture.h5"))
	ds, err := f.Dataset(ctx, "misc/vlen_strings")
	if err != nil {
		b.Fatal(err)
	}
	raw, err := ds.ReadRaw(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ReadVlen(ctx, raw); err != nil {
			b.Fatal(err)
		}
	}
}
