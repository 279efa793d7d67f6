package zarr_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

// copyStore copies a fixture store into dir/name, writable.
func copyStore(t *testing.T, name, dir string) string {
	t.Helper()
	src, dst := fixture(name), filepath.Join(dir, name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// editAttrs changes the .zattrs of key in a store.
func editAttrs(t *testing.T, store, key string, edit func(map[string]any)) {
	t.Helper()
	p := filepath.Join(store, filepath.FromSlash(key), ".zattrs")
	m := map[string]any{}
	if b, err := os.ReadFile(p); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
	}
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func setLinks(t *testing.T, store, key string, links ...map[string]any) {
	t.Helper()
	editAttrs(t, store, key, func(m map[string]any) {
		list := []any{}
		for _, l := range links {
			list = append(list, l)
		}
		m["zarr_link"] = list
	})
}

func link(name, path, source string) map[string]any {
	return map[string]any{"name": name, "path": path, "source": source}
}

func wantErr(t *testing.T, what string, err error, target error, words ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error", what)
		return
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("%s: error %v does not wrap %v", what, err, target)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not say %q", what, err, w)
		}
	}
}

// readable checks that the parts of the ecephys store not touched by a
// test still read: a series, the electrodes table and a walk of the tree.
func readable(t *testing.T, store string) {
	t.Helper()
	f, err := nwb.Open(ctx, store)
	if err != nil {
		t.Fatalf("open after damage: %v", err)
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.ReadPhysical(ctx, 0, 10); err != nil {
		t.Error(err)
	}
	if _, err := f.Table(ctx, "general/extracellular_ephys/electrodes"); err != nil {
		t.Error(err)
	}
	n := 0
	err = f.H5().Root().Walk(ctx, func(string, h5.Link, h5.Object, error) error { n++; return nil })
	if err != nil || n < 50 {
		t.Errorf("walk: %d links, %v", n, err)
	}
}

// TestHDMFZarrLinks: zarr_link entries to groups and datasets of the same
// store are soft links, to another store external links followed relative
// to the store's directory; loops, paths leaving the store and links from a
// URL store to local files are errors naming the link, the rest of the
// store readable.
func TestHDMFZarrLinks(t *testing.T) {
	dir := t.TempDir()
	store := copyStore(t, "ecephys.nwb.zarr", dir)
	copyStore(t, "ophys_behavior.nwb.zarr", dir)
	setLinks(t, store, "general/extracellular_ephys/shank0",
		link("device", "/general/devices/probe_device", "."),
		link("self", "/general/extracellular_ephys/shank0/self", "."),
		link("ping", "/general/extracellular_ephys/shank1/pong", "."),
		link("escape", "/../../etc/passwd", "."),
		link("microscope", "/general/devices/Microscope", "../ophys_behavior.nwb.zarr"),
		link("twin_series", "/acquisition/ElectricalSeries/data", "../ecephys.nwb.zarr"),
		link("missing_store", "/x", "../nowhere.nwb.zarr"),
	)
	setLinks(t, store, "general/extracellular_ephys/shank1",
		link("device", "/general/devices/probe_device", "."),
		link("pong", "/general/extracellular_ephys/shank0/ping", "."),
	)
	f := openH5(t, store)
	g, err := f.Group(ctx, "general/extracellular_ephys/shank0")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]h5.Link{
		"device":     {Name: "device", Kind: h5.SoftLink, Target: "/general/devices/probe_device"},
		"microscope": {Name: "microscope", Kind: h5.ExternalLink, Target: "/general/devices/Microscope", File: "ophys_behavior.nwb.zarr"},
		// A source naming this store itself is a soft link.
		"twin_series": {Name: "twin_series", Kind: h5.SoftLink, Target: "/acquisition/ElectricalSeries/data"},
	} {
		if l, ok := g.Link(name); !ok || l != want {
			t.Errorf("link %s = %+v, want %+v", name, l, want)
		}
	}
	if dev, err := g.Get(ctx, "device"); err != nil || dev.Path() != "/general/devices/probe_device" {
		t.Errorf("device: %v, %v", dev, err)
	}
	if d, err := g.Dataset(ctx, "twin_series"); err != nil || !slices.Equal(d.Shape(), []int{1200, 8}) {
		t.Errorf("link to a dataset: %v, %v", d, err)
	}
	m, err := g.Group(ctx, "microscope")
	if err != nil {
		t.Fatalf("external link: %v", err)
	}
	if typ, _ := m.Attrs().String("neurodata_type"); typ != "Device" {
		t.Errorf("external link's target has type %q", typ)
	}
	_, err = g.Get(ctx, "self")
	wantErr(t, "self loop", err, h5.ErrLinkCycle, "shank0/self")
	_, err = g.Get(ctx, "ping")
	wantErr(t, "two-link loop", err, h5.ErrLinkCycle, "ping")
	_, err = g.Get(ctx, "escape")
	wantErr(t, "escape", err, h5.ErrNotFound, "escape", "/../../etc/passwd")
	_, err = g.Get(ctx, "missing_store")
	wantErr(t, "missing store", err, h5.ErrExternalLink, "missing_store", "nowhere.nwb.zarr")
	readable(t, store)

	// From a store over HTTP, a link may reach other URLs only: an
	// absolute path stays on the server, a file: URL is refused.
	setLinks(t, store, "general/extracellular_ephys/shank0",
		link("device", "/general/devices/probe_device", "."),
		link("local", "/", "/etc"),
		link("file", "/", "file:///etc"),
	)
	s := serveStore(t, store, true)
	rf := openH5(t, s.URL+storePath)
	rg, err := rf.Group(ctx, "general/extracellular_ephys/shank0")
	if err != nil {
		t.Fatal(err)
	}
	_, err = rg.Get(ctx, "local")
	wantErr(t, "URL store to /etc", err, h5.ErrExternalLink, "local")
	if !slices.Contains(s.requests(), "/etc") {
		t.Errorf("the link to /etc was not looked for on the server: %v", s.requests())
	}
	_, err = rg.Get(ctx, "file")
	wantErr(t, "URL store to file:", err, h5.ErrExternalLink, "file", "only http(s) URLs")
	if dev, err := rg.Get(ctx, "device"); err != nil || dev.Path() != "/general/devices/probe_device" {
		t.Errorf("device over HTTP: %v, %v", dev, err)
	}
}

// TestHDMFZarrReferences: references in attributes and datasets are
// h5.References that Deref follows; one to a missing object fails at Deref
// naming the path, one into another store or leaving the store is an error
// naming the object and the attribute or element, the rest readable.
func TestHDMFZarrReferences(t *testing.T) {
	for _, name := range []string{"ecephys.nwb.zarr", "ecephys_jsoncodec.nwb.zarr"} {
		t.Run(name, func(t *testing.T) {
			f := openH5(t, fixture(name))
			d, err := f.Dataset(ctx, "general/extracellular_ephys/electrodes/group")
			if err != nil {
				t.Fatal(err)
			}
			if k, err := d.RefKind(ctx); err != nil || k != h5.ObjectRef {
				t.Errorf("RefKind = %v, %v", k, err)
			}
			refs, err := h5.Read[h5.Reference](ctx, d, nil)
			if err != nil || len(refs.Data) != 8 || refs.Data[7].Path != "/general/extracellular_ephys/shank1" {
				t.Fatalf("refs %v, %v", refs, err)
			}
			if o, err := f.Deref(ctx, refs.Data[0]); err != nil || o.Path() != "/general/extracellular_ephys/shank0" {
				t.Errorf("Deref: %v, %v", o, err)
			}
			e, err := f.Dataset(ctx, "acquisition/ElectricalSeries/electrodes")
			if err != nil {
				t.Fatal(err)
			}
			if r, err := e.Attrs().Ref("table"); err != nil || r.Path != "/general/extracellular_ephys/electrodes" {
				t.Errorf("table attribute: %v, %v", r, err)
			}
			if r, err := f.Root().Attrs().Ref(".specloc"); err != nil || r.Path != "/specifications" {
				t.Errorf(".specloc: %v, %v", r, err)
			}
		})
	}

	store := copyStore(t, "ecephys_jsoncodec.nwb.zarr", t.TempDir())
	editAttrs(t, store, "units/spike_times_index", func(m map[string]any) {
		m["target"] = map[string]any{"value": map[string]any{"path": "/units/nope", "source": "."}, "zarr_dtype": "object"}
	})
	editAttrs(t, store, "units/obs_intervals_index", func(m map[string]any) {
		m["target"] = map[string]any{"value": map[string]any{"path": "/units/obs_intervals", "source": "../other.nwb.zarr"}, "zarr_dtype": "object"}
	})
	editAttrs(t, store, "units/electrodes_index", func(m map[string]any) {
		m["target"] = map[string]any{"value": map[string]any{"path": "/../../units/electrodes", "source": "."}, "zarr_dtype": "object"}
	})
	// A dataset of references, one of them to nothing.
	chunk := `[{"path":"/general/extracellular_ephys/shank0","source":"."},{"path":"/nowhere","source":"."},"|O",[2]]`
	writeArray(t, store, "general/extracellular_ephys/electrodes/group", `{"id":"json2"}`, 2, []byte(chunk))
	f := openH5(t, store)
	idx, err := f.Dataset(ctx, "units/spike_times_index")
	if err != nil {
		t.Fatal(err)
	}
	r, err := idx.Attrs().Ref("target")
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Deref(ctx, r)
	wantErr(t, "missing target", err, h5.ErrNotFound, "/units/nope")
	oi, _ := f.Dataset(ctx, "units/obs_intervals_index")
	_, err = oi.Attrs().Get("target")
	wantErr(t, "reference into another store", err, nil, "/units/obs_intervals_index", `"target"`, "another store")
	ei, _ := f.Dataset(ctx, "units/electrodes_index")
	_, err = ei.Attrs().Get("target")
	wantErr(t, "reference leaving the store", err, nil, "/units/electrodes_index", "leaves the store")
	g, _ := f.Dataset(ctx, "general/extracellular_ephys/electrodes/group")
	refs, err := h5.Read[h5.Reference](ctx, g, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Deref(ctx, refs.Data[1])
	wantErr(t, "dataset reference to nothing", err, h5.ErrNotFound, "/nowhere")
	if _, err := f.Dataset(ctx, "units/spike_times"); err != nil {
		t.Error(err)
	}
}

// writeArray replaces an array of a store by a one-chunk |O array of n
// items with the given filter, no compressor, and chunk 0.
func writeArray(t *testing.T, store, key, filter string, n int, chunk []byte) {
	t.Helper()
	dir := filepath.Join(store, filepath.FromSlash(key))
	zarray := `{"chunks":[` + itoa(n) + `],"compressor":null,"dtype":"|O","fill_value":0,"filters":[` + filter +
		`],"order":"C","shape":[` + itoa(n) + `],"zarr_format":2}`
	if err := os.WriteFile(filepath.Join(dir, ".zarray"), []byte(zarray), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "0"), chunk, 0o644); err != nil {
		t.Fatal(err)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestHDMFZarrHostilePickle: pickled chunks naming a forbidden global,
// nested past the limit or claiming a huge length make their dataset's read
// fail with an error naming the dataset and what was wrong; nothing else in
// the store is affected.
func TestHDMFZarrHostilePickle(t *testing.T) {
	head := "\x80\x05" +
		"\x8c\x15numpy.core.multiarray\x94\x8c\x0c_reconstruct\x94\x93\x94" +
		"\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94C\x01b\x94\x87\x94R\x94" +
		"(K\x01K\x08\x85\x94h\x03\x8c\x05dtype\x94\x93\x94\x8c\x02O8\x94\x89\x88\x87\x94R\x94" +
		"(K\x03\x8c\x01|\x94NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?t\x94b\x89]\x94("
	tail := "et\x94b."
	for _, tc := range []struct{ name, item, want string }{
		{"global", "\x8c\x02os\x8c\x06system\x93\x8c\x02ls\x85R", "global os.system is not allowed"},
		{"builtins", "\x8c\x08builtins\x8c\x04eval\x93", "global builtins.eval is not allowed"},
		{"depth", strings.Repeat("]", 100000) + strings.Repeat("a", 99999) + "NNNNNNN", "nested more than"},
		{"length", "\x8d\x00\x00\x00\x00\x00\x00\x00\x40", "runs past the end"},
		{"opcode", "\x8c\x01x\x8c\x01yi", "INST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := copyStore(t, "ecephys.nwb.zarr", t.TempDir())
			writeArray(t, store, "general/extracellular_ephys/electrodes/group", `{"id":"pickle","protocol":5}`, 8, []byte(head+tc.item+tail))
			f := openH5(t, store)
			d, err := f.Dataset(ctx, "general/extracellular_ephys/electrodes/group")
			if err != nil {
				t.Fatal(err)
			}
			_, err = d.Read(ctx, nil)
			wantErr(t, tc.name, err, nil, "/general/extracellular_ephys/electrodes/group", "pickle", tc.want)
			readable(t, store)
		})
	}
}

// TestHDMFZarrBadLinkList: a zarr_link that is not a list of entries, or
// names a member the group has, is an error on the group's zarr_link
// attribute, naming the group; the store opens and reads.
func TestHDMFZarrBadLinkList(t *testing.T) {
	store := copyStore(t, "ecephys.nwb.zarr", t.TempDir())
	editAttrs(t, store, "general/extracellular_ephys/shank1", func(m map[string]any) { m["zarr_link"] = "device" })
	setLinks(t, store, "general/extracellular_ephys/shank0",
		link("device", "/general/devices/probe_device", "."),
		link("description", "/general/devices/probe_device", "."))
	editAttrs(t, store, "general/extracellular_ephys/shank0", func(m map[string]any) {
		l := m["zarr_link"].([]any)
		m["zarr_link"] = append(l, link("position", "/x", "."))
	})
	f := openH5(t, store)
	g, err := f.Group(ctx, "general/extracellular_ephys/shank1")
	if err != nil {
		t.Fatal(err)
	}
	_, err = g.Attrs().Get("zarr_link")
	wantErr(t, "zarr_link not a list", err, h5.ErrFormat, "/general/extracellular_ephys/shank1", "not a list")
	if typ, _ := g.Attrs().String("neurodata_type"); typ != "ElectrodeGroup" {
		t.Errorf("shank1's other attributes: type %q", typ)
	}
	if _, ok := g.Link("device"); ok {
		t.Error("shank1 has a device link from a malformed zarr_link")
	}
	g1, err := f.Group(ctx, "general/extracellular_ephys/shank0")
	if err != nil {
		t.Fatal(err)
	}
	_, err = g1.Attrs().Get("zarr_link")
	wantErr(t, "zarr_link clash", err, h5.ErrFormat, "/general/extracellular_ephys/shank0", "position")
	if l, ok := g1.Link("position"); !ok || l.Kind != h5.HardLink {
		t.Errorf("shank0/position is %+v", l)
	}
	if dev, err := g1.Get(ctx, "device"); err != nil || dev.Path() != "/general/devices/probe_device" {
		t.Errorf("shank0's device: %v, %v", dev, err)
	}
	readable(t, store)
}
