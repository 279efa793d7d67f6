package hdf5

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/codecs"
)

// listing renders the whole tree, attributes included, as text.
func listing(ctx context.Context, f *File) (string, error) {
	var sb strings.Builder
	var walk func(g *Group) error
	walk = func(g *Group) error {
		attrs, err := g.Attrs(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(&sb, "%s/ %s\n", g.Path(), attrText(attrs))
		links, err := g.Members(ctx)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.Type != LinkHard {
				fmt.Fprintf(&sb, "%s -> %s\n", joinPath(g.Path(), l.Name), l.Target)
				continue
			}
			obj, err := g.Lookup(ctx, l.Name)
			if err != nil {
				return err
			}
			switch o := obj.(type) {
			case *Group:
				if err := walk(o); err != nil {
					return err
				}
			case *Dataset:
				attrs, err := o.Attrs(ctx)
				if err != nil {
					return err
				}
				d, _ := o.Datatype().NumpyDescr()
				fmt.Fprintf(&sb, "%s %v %s %v %s\n", o.Path(), o.Shape(), d, o.Chunks(), attrText(attrs))
			}
		}
		return nil
	}
	err := walk(f.Root())
	return sb.String(), err
}

func attrText(attrs []*Attribute) string {
	var parts []string
	for _, a := range attrs {
		parts = append(parts, fmt.Sprintf("%s=%v", a.Name, a.Value))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// TestConcurrentUse walks one File from many goroutines at once (run with
// -race): every walk must see the same tree as a lone walk on a fresh File.
func TestConcurrentUse(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		t.Run(name, func(t *testing.T) {
			data := readFixture(t, name)
			want, err := listing(ctx, openBytes(t, name, data))
			if err != nil {
				t.Fatal(err)
			}
			f := openBytes(t, name, data)
			const n = 8
			got := make([]string, n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := range n {
				wg.Go(func() {
					if i%2 == 0 {
						_, errs[i] = f.PathOf(ctx, 0)
					}
					if errs[i] == nil {
						got[i], errs[i] = listing(ctx, f)
					}
				})
			}
			wg.Wait()
			for i := range n {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Errorf("goroutine %d saw a different tree", i)
				}
			}
		})
	}
}

func TestOptions(t *testing.T) {
	ctx := context.Background()
	data := readFixture(t, "fixture.h5")
	tests := []struct {
		name string
		opts []Option
		ok   bool
	}{
		{"defaults", nil, true},
		{"small pages", []Option{WithPageSize(4096), WithMetadataCacheBytes(1 << 20)}, true},
		{"page size not a power of two", []Option{WithPageSize(5000)}, false},
		{"cache smaller than a page", []Option{WithMetadataCacheBytes(100)}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := Open(ctx, &memSource{name: "fixture.h5", data: data}, tc.opts...)
			if (err == nil) != tc.ok {
				t.Fatalf("Open: %v", err)
			}
			if err == nil {
				if _, err := listing(ctx, f); err != nil {
					t.Error(err)
				}
			}
		})
	}
}

// TestRequests counts the reads that opening fixture.h5 and listing every
// object and attribute sends to the source: the page cache keeps it to a
// handful, which is what makes a remote open cheap.
func TestRequests(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		for _, page := range []int{4 << 10, 64 << 10, 256 << 10} {
			t.Run(fmt.Sprintf("%s/%dKiB", name, page>>10), func(t *testing.T) {
				src := &memSource{name: name, data: readFixture(t, name)}
				f, err := Open(ctx, src, WithPageSize(page))
				if err != nil {
					t.Fatal(err)
				}
				if _, err := listing(ctx, f); err != nil {
					t.Fatal(err)
				}
				st := f.Stats()
				t.Logf("%d KiB pages: %d requests, %d bytes, %d cache hits", page>>10, src.reads.Load(), st.BytesRead, st.Hits)
				if st.Requests != src.reads.Load() {
					t.Errorf("Stats says %d requests, the source saw %d", st.Requests, src.reads.Load())
				}
				if page == 64<<10 && src.reads.Load() > 40 {
					t.Errorf("%d requests to list the tree", src.reads.Load())
				}
			})
		}
	}
}

// TestOptionErrors checks that a bad option fails Open and NewReader with
// an error naming the option and its value.
func TestOptionErrors(t *testing.T) {
	data := readFixture(t, "fixture.h5")
	for _, tc := range []struct {
		opt  Option
		want string
	}{
		{WithPageSize(5000), "WithPageSize(5000)"},
		{WithPageSize(256), "WithPageSize(256)"},
		{WithMetadataCacheBytes(0), "WithMetadataCacheBytes(0)"},
		{WithMetadataCacheBytes(100), "WithMetadataCacheBytes(100)"},
		{WithCodecs(nil), "WithCodecs(nil)"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(data), int64(len(data)), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one naming %s", err, tc.want)
			}
		})
	}
}

// TestNewReader opens a file from an io.ReaderAt and rejects bad arguments.
func TestNewReader(t *testing.T) {
	data := readFixture(t, "fixture.h5")
	f, err := NewReader(bytes.NewReader(data), int64(len(data)), WithCodecs(codecs.Builtin()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := listing(context.Background(), f); err != nil {
		t.Error(err)
	}
	if _, err := NewReader(nil, 10); err == nil {
		t.Error("nil io.ReaderAt accepted")
	}
	if _, err := NewReader(bytes.NewReader(data), -1); err == nil {
		t.Error("negative size accepted")
	}
	if _, err := NewReader(bytes.NewReader(data[:100]), 100); !errors.Is(err, ErrFormat) {
		t.Errorf("100 bytes: %v", err)
	}
}
