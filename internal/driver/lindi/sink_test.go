package lindi

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
)

// docWith is a document whose refs are .zgroup and refs.
func docWith(refs map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"refs\": {\n    \".zgroup\": {\"zarr_format\": 2}")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range refs {
			if !yield(k) {
				return
			}
		}
	}) {
		fmt.Fprintf(&b, ",\n    %q: %s", k, refs[k])
	}
	b.WriteString("\n  }\n}")
	return b.Bytes()
}

func create(t testing.TB, name string) (driver.Sink, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	c := driver.ContainerFor(Containers(), p)
	if c == nil {
		t.Fatalf("no container claims %s", p)
	}
	s, err := c.Create(ctx, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("%s before the first commit: %v, want none", name, err)
	}
	empty := prettyEmpty() // unchanged: the commit only makes it p
	if _, ok := c.(TarContainer); !ok && strings.HasSuffix(name, ".json") {
		empty = []byte(driver.EmptyDocument)
	}
	if err := s.Commit(ctx, empty); err != nil {
		t.Fatal(err)
	}
	return s, p
}

// TestCreateLikePython: a new tar is byte for byte the one Python lindi
// creates (LindiH5pyFile.from_lindi_file(name, mode="w"), closed).
func TestCreateLikePython(t *testing.T) {
	want, err := os.ReadFile("testdata/interop/python-empty.lindi.tar")
	if err != nil {
		t.Fatal(err)
	}
	s, p := create(t, "x.lindi.tar")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, want) {
		t.Fatalf("created %d bytes, Python lindi %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestClaims(t *testing.T) {
	for name, want := range map[string]string{
		"a.lindi.tar": "tar", "a.nwb.lindi.tar": "tar", "a.tar": "tar",
		"a.lindi.d": "dir", "a.lindi.d/": "dir", "a.d": "dir",
		"a.lindi.json": "json", "a.json": "json",
		"a.nwb": "", "a.h5": "", "a.tar.gz": "", "a.zarr": "",
	} {
		var got string
		switch driver.ContainerFor(Containers(), name).(type) {
		case TarContainer:
			got = "tar"
		case DirContainer:
			got = "dir"
		case nil:
		default:
			got = "json"
		}
		if got != want {
			t.Errorf("%s is claimed by %q, want %q", name, got, want)
		}
	}
}

// TestCreateOpenErrors: Create refuses what exists, OpenSink what does not.
func TestCreateOpenErrors(t *testing.T) {
	for _, name := range []string{"x.lindi.tar", "x.lindi.d", "x.lindi.json"} {
		t.Run(name, func(t *testing.T) {
			s, p := create(t, name)
			s.Close()
			c := driver.ContainerFor(Containers(), p)
			if _, err := c.Create(ctx, p, false); !errors.Is(err, fs.ErrExist) {
				t.Errorf("Create over an existing %s: %v, want fs.ErrExist", name, err)
			}
			if _, _, err := c.OpenSink(ctx, p+".none"+filepath.Ext(p)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("OpenSink of a missing file: %v, want fs.ErrNotExist", err)
			}
			s, doc, err := c.OpenSink(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var d map[string]any
			if err := json.Unmarshal(doc, &d); err != nil || fmt.Sprint(d) != "map[refs:map[.zgroup:map[zarr_format:2]]]" {
				t.Errorf("a new container's document is %s (%v)", doc, err)
			}
		})
	}
}

// TestLock: a second writer is refused, saying why, until the first closes.
func TestLock(t *testing.T) {
	for _, name := range []string{"x.lindi.tar", "x.lindi.d", "x.lindi.json"} {
		t.Run(name, func(t *testing.T) {
			s, p := create(t, name)
			c := driver.ContainerFor(Containers(), p)
			_, _, err := c.OpenSink(ctx, p)
			if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "another process") {
				t.Fatalf("a second writer: %v, want ErrLocked", err)
			}
			if err := s.Commit(ctx, docWith(nil)); err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.OpenSink(ctx, p); !errors.Is(err, ErrLocked) {
				t.Fatalf("a second writer after a commit: %v, want ErrLocked", err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			s2, _, err := c.OpenSink(ctx, p)
			if err != nil {
				t.Fatalf("after Close: %v", err)
			}
			s2.Close()
			if err := s2.Close(); !errors.Is(err, fs.ErrClosed) {
				t.Errorf("a second Close: %v, want fs.ErrClosed", err)
			}
			if _, err := os.Stat(p + ".lock"); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the lock file stays after Close: %v", err)
			}
		})
	}
}

// TestBlobs writes blobs concurrently, reads them back before and after the
// commit, and rewrites them as versions.
func TestBlobs(t *testing.T) {
	long := strings.Repeat("g/", 60) + "d" // 121 bytes: name and prefix
	for _, name := range []string{"x.lindi.tar", "x.lindi.d"} {
		t.Run(name, func(t *testing.T) {
			s, p := create(t, name)
			defer s.Close()
			keys := []string{"a/0", "a/1", "b/c/0.0", long + "/0"}
			for round := range 3 {
				refs := map[string]json.RawMessage{}
				var mu sync.Mutex
				var wg sync.WaitGroup
				for i, k := range keys {
					wg.Go(func() {
						ref, err := s.Blob(ctx, k, bytes.Repeat([]byte{byte(round*10 + i)}, 1000+i*700))
						if err != nil {
							t.Error(err)
							return
						}
						mu.Lock()
						refs[k] = ref
						mu.Unlock()
					})
				}
				wg.Wait()
				if t.Failed() {
					t.FailNow()
				}
				for i, k := range keys {
					var ref []any
					json.Unmarshal(refs[k], &ref)
					want := "./blobs/" + k
					if round > 0 {
						want += fmt.Sprintf(".v%d", round+1)
					}
					if len(ref) != 3 || ref[0] != want || ref[2] != float64(1000+i*700) {
						t.Fatalf("round %d: ref %s, want [%q, 0, %d]", round, refs[k], want, 1000+i*700)
					}
					v, err := s.Member(ctx, want[2:])
					if err != nil || v.Len != int64(1000+i*700) {
						t.Fatalf("a pending blob: %+v, %v", v, err)
					}
				}
				if err := s.Commit(ctx, docWith(refs)); err != nil {
					t.Fatal(err)
				}
				st := mustState(t, p)
				for i, k := range keys {
					if b := st.chunks[k]; len(b) != 1000+i*700 || b[0] != byte(round*10+i) {
						t.Fatalf("round %d: %s reads back %d bytes", round, k, len(b))
					}
				}
			}
			if name == "x.lindi.tar" {
				checkTail(t, p)
				checkTarList(t, p)
			}
		})
	}
}

// checkTarList reads the tar as archive/tar does, to its end: every member
// of the index is there, under its whole name (prefixes included).
func checkTarList(t *testing.T, p string) {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := readCommitted(f)
	if err != nil {
		t.Fatal(err)
	}
	f.Seek(0, 0)
	seen := map[string]int64{}
	r := tar.NewReader(f)
	for {
		h, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("archive/tar: %v", err)
		}
		if h.Format != tar.FormatUSTAR && h.Format != tar.FormatUnknown {
			t.Errorf("%s: format %v", h.Name, h.Format)
		}
		seen[h.Name] = h.Size
	}
	for _, rec := range recs {
		if size, ok := seen[rec.name]; !ok || size != rec.s {
			t.Errorf("archive/tar lists %q with %d bytes (listed: %v), the index %d", rec.name, size, ok, rec.s)
		}
	}
}

// TestCommitChecksRefs: a document naming a member the container does not
// hold, or bytes past one, is refused and the sink goes on.
func TestCommitChecksRefs(t *testing.T) {
	for _, name := range []string{"x.lindi.tar", "x.lindi.d"} {
		t.Run(name, func(t *testing.T) {
			s, p := create(t, name)
			defer s.Close()
			ref, err := s.Blob(ctx, "a/0", make([]byte, 2000))
			if err != nil {
				t.Fatal(err)
			}
			for bad, want := range map[string]string{
				`["./blobs/a/1", 0, 10]`:    "does not hold",
				`["./blobs/a/0", 10, 1995]`: "outside member",
				`["./../x", 0, 1]`:          map[string]string{"x.lindi.tar": "does not hold", "x.lindi.d": "leaves the directory"}[name],
			} {
				err := s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref, "a/1": json.RawMessage(bad)}))
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("%s: %v, want an error saying %q", bad, err, want)
				}
			}
			if err := s.Commit(ctx, []byte(`{"refs": `)); err == nil {
				t.Error("a document that is not JSON was committed")
			}
			if err := s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref})); err != nil {
				t.Fatal(err)
			}
			if got := mustState(t, p); len(got.chunks["a/0"]) != 2000 {
				t.Fatalf("read back %d bytes", len(got.chunks["a/0"]))
			}
		})
	}
}

// TestHostileKeys: keys that could not name a member, or not fit a USTAR
// header, are refused naming the key.
func TestHostileKeys(t *testing.T) {
	s, _ := create(t, "x.lindi.tar")
	defer s.Close()
	d, _ := create(t, "x.lindi.d")
	defer d.Close()
	for key, want := range map[string]string{
		"a/../../etc/passwd":            "leaves the directory",
		"../x":                          "leaves the directory",
		"a//b":                          "leaves the directory",
		"/a":                            "leaves the directory",
		`a\b`:                           "leaves the directory",
		"a\x00b":                        "NUL",
		"a/\xff":                        "UTF-8",
		strings.Repeat("x", 101):        "does not fit",
		strings.Repeat("y", 160) + "/0": "does not fit",
		"a/" + strings.Repeat("z", 120): "does not fit",
	} {
		_, err := s.Blob(ctx, key, make([]byte, 1000))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), fmt.Sprintf("%q", key)) {
			t.Errorf("tar: key %q: %v, want an error naming the key and saying %q", key, err, want)
		}
		if strings.Contains(want, "fit") {
			continue // a directory holds long names
		}
		if _, err := d.Blob(ctx, key, make([]byte, 1000)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("dir: key %q: %v, want an error saying %q", key, err, want)
		}
	}
	// The refusals wrote nothing and broke nothing.
	if err := s.Commit(ctx, docWith(nil)); err != nil {
		t.Fatal(err)
	}
}

// TestSplitName: names over 100 bytes are split at the last '/' that
// leaves the name field at most 100 bytes and the prefix at most 155.
func TestSplitName(t *testing.T) {
	for _, tc := range []struct{ name, prefix, base string }{
		{"a/b", "", "a/b"},
		{strings.Repeat("a", 100), "", strings.Repeat("a", 100)},
		{strings.Repeat("p", 150) + "/" + strings.Repeat("n", 100), strings.Repeat("p", 150), strings.Repeat("n", 100)},
		{"blobs/" + strings.Repeat("d/", 60) + "0", "blobs/" + strings.Repeat("d/", 59) + "d", "0"},
	} {
		p, b, err := splitName(tc.name)
		if err != nil || p != tc.prefix || b != tc.base {
			t.Errorf("splitName(%q) = %q, %q, %v; want %q, %q", tc.name, p, b, err, tc.prefix, tc.base)
		}
		h, err := header(tc.name, 5)
		if err != nil {
			t.Fatal(err)
		}
		th, err := tar.NewReader(io.MultiReader(bytes.NewReader(h), bytes.NewReader(make([]byte, 1024)))).Next()
		if err != nil || th.Name != tc.name || th.Size != 5 {
			t.Errorf("archive/tar reads %q's header as %+v, %v", tc.name, th, err)
		}
	}
}

// TestOpenHostileTar: OpenSink refuses a tar whose index lies, naming
// what is wrong, and leaves it untouched.
func TestOpenHostileTar(t *testing.T) {
	s, p := create(t, "x.lindi.tar")
	s.Close()
	good, _ := os.ReadFile(p)
	for name, tc := range map[string]struct {
		edit func([]byte) []byte
		want string
	}{
		"index past the end": {func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"d": 2048,`), []byte(`"d": 9999999,`), 1)
		}, "outside the file"},
		"a member past the end": {func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"d": 10752,`), []byte(`"d": 99999999,`), 1)
		}, "outside the file"},
		"not a tar":      {func(b []byte) []byte { b[257] = 'x'; return b }, "not a tar"},
		"entry not JSON": {func(b []byte) []byte { b[512] = '['; return b }, entryName},
		"truncated":      {func(b []byte) []byte { return b[:5000] }, "outside the file"},
	} {
		t.Run(name, func(t *testing.T) {
			data := tc.edit(bytes.Clone(good))
			q := filepath.Join(t.TempDir(), "x.lindi.tar")
			os.WriteFile(q, data, 0o644)
			_, _, err := TarContainer{}.OpenSink(ctx, q)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, driver.ErrFormat) {
				t.Fatalf("%v, want an ErrFormat saying %q", err, tc.want)
			}
			if after, _ := os.ReadFile(q); !bytes.Equal(after, data) {
				t.Error("OpenSink changed a file it refused")
			}
		})
	}
}

// TestRepairTail: whatever a killed writer appended after the last commit
// is cut off by OpenSink, and the zero tail put back.
func TestRepairTail(t *testing.T) {
	s, p := create(t, "x.lindi.tar")
	ref, _ := s.Blob(ctx, "a/0", make([]byte, 3000))
	s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref}))
	s.Close()
	want := mustState(t, p)
	size := fileSize(t, p)
	for name, garbage := range map[string][]byte{
		"half a blob":       bytes.Repeat([]byte{7}, 700),
		"no tail":           nil,
		"GNU record blocks": make([]byte, 9216),
	} {
		t.Run(name, func(t *testing.T) {
			data, _ := os.ReadFile(p)
			q := filepath.Join(t.TempDir(), "x.lindi.tar")
			os.WriteFile(q, append(data[:size-tailSize], garbage...), 0o644)
			s, doc, err := TarContainer{}.OpenSink(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(doc, want.doc) {
				t.Errorf("document %s", doc)
			}
			s.Close()
			checkTail(t, q)
			if got := fileSize(t, q); got != size {
				t.Errorf("repaired to %d bytes, want %d", got, size)
			}
		})
	}
}

func fileSize(t *testing.T, p string) int64 {
	t.Helper()
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestCloseCutsPending: blobs not committed are cut off at Close, so the
// file ends as Python lindi needs to append.
func TestCloseCutsPending(t *testing.T) {
	s, p := create(t, "x.lindi.tar")
	size := fileSize(t, p)
	if _, err := s.Blob(ctx, "a/0", make([]byte, 5000)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got := fileSize(t, p); got != size {
		t.Errorf("%d bytes after Close, want %d", got, size)
	}
	checkTail(t, p)

	d, q := create(t, "x.lindi.d")
	if _, err := d.Blob(ctx, "a/0", make([]byte, 5000)); err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := os.Stat(filepath.Join(q, "blobs/a/0")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an uncommitted blob file stays after Close: %v", err)
	}
}

// TestFullDisk: a write that fails (as on a full disk), at any write of a
// blob or a commit, fails that call and every later one, clearly; the
// file opens at its last committed state, and a new writer goes on.
func TestFullDisk(t *testing.T) {
	for fail := 1; ; fail++ {
		s, p := create(t, "x.lindi.tar")
		ref, _ := s.Blob(ctx, "a/0", make([]byte, 1500))
		if err := s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref})); err != nil {
			t.Fatal(err)
		}
		want := mustState(t, p)
		ts := s.(*tarSink)
		writes := 0
		inject := func(err error) bool { writes++; return writes == fail }
		ts.writeAt = func(b []byte, off int64) (int, error) {
			if inject(nil) {
				n, _ := ts.f.WriteAt(b[:len(b)/2], off)
				return n, errNoSpace
			}
			return ts.f.WriteAt(b, off)
		}
		ts.sync = func() error {
			if inject(nil) {
				return errNoSpace
			}
			return ts.f.Sync()
		}
		ref, err1 := s.Blob(ctx, "a/0", bytes.Repeat([]byte{1}, 3000))
		var err2 error
		if err1 == nil {
			err2 = s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref}))
		}
		if err1 == nil && err2 == nil {
			s.Close()
			if fail != 9 {
				t.Fatalf("no failure injected at write %d of 8", fail)
			}
			break // every write of a blob and a commit has been failed
		}
		err := errors.Join(err1, err2)
		if !errors.Is(err, errNoSpace) {
			t.Errorf("write %d: %v does not wrap the write's error", fail, err)
		}
		if _, err := s.Blob(ctx, "b/0", make([]byte, 1000)); err == nil || !strings.Contains(err.Error(), "open it again") {
			t.Errorf("write %d: after a failure, Blob: %v", fail, err)
		}
		s.Close()
		got := mustState(t, p)
		// Writes 1-3 are the blob's, 4 and 5 append lindi.json and the
		// index, 6 syncs them; from 7 on (the entry, half written, then
		// its sync) the new state may have landed.
		if !bytes.Equal(got.doc, want.doc) && fail < 7 {
			t.Errorf("write %d failed: the file is not at its last committed state", fail)
		}
		s2, _, err := TarContainer{}.OpenSink(ctx, p)
		if err != nil {
			t.Fatalf("write %d failed: reopening: %v", fail, err)
		}
		ref, err = s2.Blob(ctx, "a/0", make([]byte, 1200))
		if err == nil {
			err = s2.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref}))
		}
		if err != nil {
			t.Fatalf("write %d failed: the next writer: %v", fail, err)
		}
		s2.Close()
		checkTail(t, p)
	}
}

var errNoSpace = errors.New("no space left on device (injected)")

var _ store.Members = (*tarSink)(nil)

// TestStaleLockFile: a lock file a killed writer left beside a .lindi.json
// holds no lock: the next writer takes it, and removes it at Close.
func TestStaleLockFile(t *testing.T) {
	s, p := create(t, "x.lindi.json")
	s.Close()
	if err := os.WriteFile(p+".lock", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, _, err := driver.ContainerFor(Containers(), p).OpenSink(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock file stays: %v", err)
	}
}

// TestFullDiskDir: a blob file or a lindi.json that cannot be written fails
// the call and the later ones; the directory opens at its last committed
// state, and a new writer goes on.
func TestFullDiskDir(t *testing.T) {
	for _, failDoc := range []bool{false, true} {
		s, p := create(t, "x.lindi.d")
		ref, _ := s.Blob(ctx, "a/0", make([]byte, 1500))
		if err := s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref})); err != nil {
			t.Fatal(err)
		}
		want := mustState(t, p)
		ds := s.(*dirSink)
		full := func(p string, data []byte) error { // half written, then removed, as writeFile does
			os.MkdirAll(filepath.Dir(p), 0o755)
			f, _ := os.Create(p)
			f.Write(data[:len(data)/2])
			f.Close()
			os.Remove(p)
			return errNoSpace
		}
		if failDoc {
			ds.replaceFile = func(string, []byte) error { return errNoSpace } // its temporary file is not written
		} else {
			ds.writeFile = full
		}
		ref, err := s.Blob(ctx, "a/0", make([]byte, 3000))
		if err == nil {
			err = s.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref}))
		}
		if !errors.Is(err, errNoSpace) {
			t.Fatalf("failing the %s: %v", map[bool]string{true: "document", false: "blob"}[failDoc], err)
		}
		if err := s.Commit(ctx, docWith(nil)); err == nil || !strings.Contains(err.Error(), "open it again") {
			t.Errorf("after a failure, Commit: %v", err)
		}
		s.Close()
		if got := mustState(t, p); !bytes.Equal(got.doc, want.doc) {
			t.Error("the directory is not at its last committed state")
		}
		s2, _, err := driver.ContainerFor(Containers(), p).OpenSink(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		ref, err = s2.Blob(ctx, "a/0", make([]byte, 1200))
		if err == nil {
			err = s2.Commit(ctx, docWith(map[string]json.RawMessage{"a/0": ref}))
		}
		if err != nil {
			t.Fatalf("the next writer: %v", err)
		}
		s2.Close()
		if got := mustState(t, p); len(got.chunks["a/0"]) != 1200 {
			t.Error("the next writer's commit does not read back")
		}
	}
}

// TestCommitReuse: an unchanged document with no new blob writes nothing;
// with new blobs, only the index is appended and lindi.json keeps its slot.
func TestCommitReuse(t *testing.T) {
	s, p := create(t, "x.lindi.tar")
	defer s.Close()
	ref, _ := s.Blob(ctx, "a/0", make([]byte, 2000))
	doc := docWith(map[string]json.RawMessage{"a/0": ref})
	if err := s.Commit(ctx, doc); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p)
	if err := s.Commit(ctx, append(bytes.Clone(doc), "\n  "...)); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
		t.Error("committing the same document changed the file")
	}
	slot := func() record {
		f, _ := os.Open(p)
		defer f.Close()
		recs, _, err := readCommitted(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if r.name == jsonName {
				return r
			}
		}
		t.Fatal("no lindi.json")
		return record{}
	}
	was := slot()
	if _, err := s.Blob(ctx, "b/0", make([]byte, 2000)); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(ctx, doc); err != nil {
		t.Fatal(err)
	}
	if now := slot(); now != was {
		t.Errorf("lindi.json moved from %+v to %+v for the same document", was, now)
	}
	if v, err := s.Member(ctx, "blobs/b/0"); err != nil || v.Len != 2000 {
		t.Errorf("the committed blob: %+v, %v", v, err)
	}
	checkTail(t, p)
}
