package h5grove

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

var fixtureForms = []string{"fixture.h5", "fixture-latest.h5", "fixture.lindi.json", "fixture.lindi.tar", "fixture.lindi.d"}

// TestMeta compares /meta of every entity of the fixture with h5py's: kind,
// name, shape, chunks, a group's children, the names and shapes of the
// attributes, and the dataset types. The HDF5 forms must give h5py's type
// metadata exactly; the LINDI forms (Zarr underneath: no HDF5 type) the same
// class and dtype for numbers and booleans.
func TestMeta(t *testing.T) {
	e := loadExpected(t)
	ts := serve(t, Dir(conformance))
	for _, file := range fixtureForms {
		hdf5 := strings.HasSuffix(file, ".h5")
		for p, w := range e["meta"].(map[string]any) {
			want := w.(map[string]any)
			got := get(t, ts, "/meta", "file", file, "path", p).ok(t, file+" "+p).(map[string]any)
			what := file + " " + p
			for _, k := range []string{"kind", "name", "shape"} {
				if !equalJSON(got[k], want[k]) {
					t.Errorf("%s: %s %v, want %v", what, k, got[k], want[k])
				}
			}
			if !equalJSON(attrSummary(got["attributes"]), attrSummary(want["attributes"])) {
				t.Errorf("%s: attributes %v, want %v", what, attrSummary(got["attributes"]), attrSummary(want["attributes"]))
			}
			if want["kind"] == "group" {
				var names []any
				for _, c := range got["children"].([]any) {
					names = append(names, c.(map[string]any)["name"])
				}
				if !equalJSON(names, want["children"]) {
					t.Errorf("%s: children %v, want %v", what, names, want["children"])
				}
				continue
			}
			gt, wt := got["type"].(map[string]any), want["type"].(map[string]any)
			switch {
			case hdf5 && !isVlenStringFixed(p):
				if !equalJSON(got["chunks"], want["chunks"]) {
					t.Errorf("%s: chunks %v, want %v", what, got["chunks"], want["chunks"])
				}
				if fmt.Sprint(gt) != fmt.Sprint(wt) {
					t.Errorf("%s: type\n%v, want\n%v", what, gt, wt)
				}
			case wt["class"] == 0.0 || wt["class"] == 1.0 || wt["dtype"] == "|b1":
				if gt["class"] != wt["class"] || gt["dtype"] != wt["dtype"] {
					t.Errorf("%s: type %v, want %v", what, gt, wt)
				}
			}
		}
	}
}

// isVlenStringFixed names the fixed-length string datasets, whose padding
// h5 does not report (h5py: null-padded or null-terminated as stored).
func isVlenStringFixed(p string) bool {
	return p == "/identifier" || p == "/misc/fixed_strings" || p == "/file_create_date"
}

// attrSummary keeps the names and shapes of attribute metadata.
func attrSummary(v any) []string {
	var out []string
	for _, a := range v.([]any) {
		m := a.(map[string]any)
		out = append(out, fmt.Sprint(m["name"], m["shape"]))
	}
	slices.Sort(out)
	return out
}

// TestAttr compares /attr with h5py's attribute values, all of them and
// one picked by attr_keys.
func TestAttr(t *testing.T) {
	e := loadExpected(t)
	ts := serve(t, Dir(conformance))
	for _, file := range fixtureForms {
		for p, w := range e["attrs"].(map[string]any) {
			want := w.(map[string]any)
			got := get(t, ts, "/attr", "file", file, "path", p).ok(t, file+" "+p).(map[string]any)
			if len(got) != len(want) {
				t.Errorf("%s %s: %d attributes, want %d", file, p, len(got), len(want))
			}
			for k, wv := range want {
				if wv == nil { // a reference: its text is ours
					if s, _ := got[k].(string); !strings.Contains(s, "reference") {
						t.Errorf("%s %s@%s: %v, want a reference", file, p, k, got[k])
					}
					continue
				}
				if !equalJSON(got[k], wv) {
					t.Errorf("%s %s@%s: %v, want %v", file, p, k, got[k], wv)
				}
			}
		}
	}
	got := get(t, ts, "/attr", "file", "fixture.h5", "path", "/misc", "attr_keys", "int_attr", "attr_keys", "str_attr").ok(t, "attr_keys")
	if fmt.Sprint(got) != "map[int_attr:7 str_attr:hello]" {
		t.Errorf("attr_keys int_attr, str_attr: %v", got)
	}
	if a := get(t, ts, "/attr", "file", "fixture.h5", "path", "/misc", "attr_keys", "nope"); a.status != 404 {
		t.Errorf("attr_keys nope: status %d: %s", a.status, a.body)
	}
}

// TestPaths compares /paths with HDF5's link visit, from the root and from
// a group, in every form.
func TestPaths(t *testing.T) {
	e := loadExpected(t)
	ts := serve(t, Dir(conformance))
	for _, file := range fixtureForms {
		for p, want := range e["paths"].(map[string]any) {
			got := get(t, ts, "/paths", "file", file, "path", p).ok(t, file+" "+p)
			if !equalJSON(got, want) {
				t.Errorf("%s %s: paths\n%v, want\n%v", file, p, got, want)
			}
		}
	}
}

// TestLinks checks resolve_links on soft and external links, valid and
// broken, as h5grove's documentation describes it.
func TestLinks(t *testing.T) {
	ts := serve(t, Dir("../testdata/parity"))
	cases := []struct {
		path, mode string
		status     int
		kind       string
	}{
		{"/ext", "", 200, "dataset"},
		{"/ext", "none", 200, "external_link"},
		{"/ext", "all", 200, "dataset"},
		{"/ext_missing", "", 200, "external_link"},
		{"/ext_missing", "only_valid", 200, "external_link"},
		{"/ext_missing", "all", 404, ""},
		{"/ext_missing", "sometimes", 422, ""},
		{"/nope", "", 404, ""},
	}
	for _, c := range cases {
		args := []string{"file", "features.h5", "path", c.path}
		if c.mode != "" {
			args = append(args, "resolve_links", c.mode)
		}
		a := get(t, ts, "/meta", args...)
		if a.status != c.status {
			t.Errorf("%s resolve_links=%s: status %d, want %d: %s", c.path, c.mode, a.status, c.status, a.body)
			continue
		}
		if c.status != 200 {
			msg := a.message(t)
			if c.status == 404 && !strings.Contains(msg, "Cannot resolve") && !strings.Contains(msg, "not a valid path") {
				t.Errorf("%s resolve_links=%s: message %q has neither of h5web's phrases", c.path, c.mode, msg)
			}
			continue
		}
		m := a.ok(t, c.path).(map[string]any)
		if m["kind"] != c.kind {
			t.Errorf("%s resolve_links=%s: kind %v, want %s", c.path, c.mode, m["kind"], c.kind)
		}
		if c.kind == "external_link" && (m["target_file"] == nil || m["target_path"] != "/data") {
			t.Errorf("%s: external link metadata %v", c.path, m)
		}
	}
	m := get(t, serve(t, Dir(conformance)), "/meta", "file", "fixture.h5", "path", "/misc/soft_link_to_data", "resolve_links", "none").ok(t, "soft link").(map[string]any)
	if m["kind"] != "soft_link" || m["target_path"] != "/acquisition/ElectricalSeries/data" {
		t.Errorf("soft link, resolve_links=none: %v", m)
	}
}
