package dandi_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
)

// archive is the stand-in archive the tests share the shape of: a public
// dandiset with seven assets in two folders, a Zarr asset and a published
// version, and an embargoed one.
func archive(t *testing.T) *danditest.Server {
	t.Helper()
	nwb, err := os.ReadFile("../testdata/nwb/tables.nwb")
	if err != nil {
		t.Fatal(err)
	}
	var draft []danditest.Asset
	for _, p := range []string{
		"sub-01/sub-01_ecephys.nwb", "sub-01/sub-01_behavior.nwb", "sub-01/notes.txt",
		"sub-02/sub-02_ecephys.nwb", "sub-02/sub-02_behavior.nwb", "README.md", "dataset_description.json",
	} {
		draft = append(draft, danditest.Asset{Path: p, Data: nwb})
	}
	draft = append(draft, danditest.Asset{Path: "sub-03/sub-03.ome.zarr", Zarr: map[string][]byte{".zgroup": []byte(`{"zarr_format":2}`)}})
	s := danditest.New(t,
		danditest.Dandiset{ID: "000409", Draft: draft, Published: map[string][]danditest.Asset{
			"0.230101.1200": {{Path: "sub-01/sub-01_ecephys.nwb", Data: nwb[:1000]}},
		}},
		danditest.Dandiset{ID: "000123", Embargoed: true, Draft: []danditest.Asset{{Path: "secret.nwb", Data: nwb}}},
	)
	s.Setenv(t, "")
	return s
}

const inst = "dandi://" + danditest.Instance + "/"

func paths(t *testing.T, address string, opts ...dandi.Option) []string {
	t.Helper()
	var out []string
	for a, err := range dandi.Assets(context.Background(), address, opts...) {
		if err != nil {
			t.Fatalf("Assets(%s): %v", address, err)
		}
		out = append(out, a.Path)
	}
	return out
}

func TestAssetsPaginated(t *testing.T) {
	s := archive(t)
	got := paths(t, inst+"000409@draft")
	want := []string{"README.md", "dataset_description.json", "sub-01/notes.txt", "sub-01/sub-01_behavior.nwb",
		"sub-01/sub-01_ecephys.nwb", "sub-02/sub-02_behavior.nwb", "sub-02/sub-02_ecephys.nwb", "sub-03/sub-03.ome.zarr"}
	if !slices.Equal(got, want) {
		t.Fatalf("listed %q\nwant %q", got, want)
	}
	if n := len(s.Hits("/dandisets/000409/versions/draft/assets/")); n != 3 {
		t.Errorf("%d listing requests for 8 assets in pages of 3, want 3", n)
	}
	// The process keeps the answers: listing again asks nothing.
	paths(t, inst+"000409")
	if n := len(s.Hits("/dandisets/000409/versions/draft/assets/")); n != 3 {
		t.Errorf("listing again made %d requests in all, want the 3 of the first", n)
	}
}

func TestAssetsStopEarly(t *testing.T) {
	s := archive(t)
	for a, err := range dandi.Assets(context.Background(), inst+"000409") {
		if err != nil || a.Path != "README.md" {
			t.Fatalf("first asset %q, %v", a.Path, err)
		}
		break
	}
	if n := len(s.Hits("/dandisets/000409/versions/draft/assets/")); n != 1 {
		t.Errorf("stopping after the first asset made %d requests, want 1", n)
	}
}

func TestAssetsFields(t *testing.T) {
	s := archive(t)
	var got []dandi.Asset
	for a, err := range dandi.Assets(context.Background(), inst+"000409", dandi.WithGlob("*.zarr")) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a)
	}
	if len(got) != 1 {
		t.Fatalf("got %d assets, want the Zarr one", len(got))
	}
	a := got[0]
	if a.ID != s.AssetID("000409", "draft", "sub-03/sub-03.ome.zarr") || a.Zarr == "" || a.Blob != "" || !a.IsZarr() ||
		a.Dandiset != "000409" || a.Version != "draft" || a.Instance != danditest.Instance || a.Created.IsZero() {
		t.Errorf("asset %+v", a)
	}
	if want := inst + "000409@draft/sub-03/sub-03.ome.zarr"; a.Address() != want {
		t.Errorf("Address() = %q, want %q", a.Address(), want)
	}
}

func TestAssetsGlobAndFolders(t *testing.T) {
	archive(t)
	for _, tc := range []struct {
		address, glob string
		want          []string
	}{
		{inst + "000409@draft", "sub-*/*.nwb", []string{"sub-01/sub-01_behavior.nwb", "sub-01/sub-01_ecephys.nwb", "sub-02/sub-02_behavior.nwb", "sub-02/sub-02_ecephys.nwb"}},
		{inst + "000409", "*ECEPHYS.nwb", []string{"sub-01/sub-01_ecephys.nwb", "sub-02/sub-02_ecephys.nwb"}},
		{inst + "000409/sub-02/", "", []string{"sub-02/sub-02_behavior.nwb", "sub-02/sub-02_ecephys.nwb"}},
		{inst + "000409/sub-01/", "*.txt", []string{"sub-01/notes.txt"}},
		{inst + "000409/sub-01/notes.txt", "", []string{"sub-01/notes.txt"}},
		{inst + "000409/sub-01/notes.txt", "*.nwb", nil},
		{inst + "000409@0.230101.1200", "", []string{"sub-01/sub-01_ecephys.nwb"}},
	} {
		var opts []dandi.Option
		if tc.glob != "" {
			opts = append(opts, dandi.WithGlob(tc.glob))
		}
		if got := paths(t, tc.address, opts...); !slices.Equal(got, tc.want) {
			t.Errorf("%s glob %q: %q, want %q", tc.address, tc.glob, got, tc.want)
		}
	}
}

func TestWebAndAPIForms(t *testing.T) {
	s := archive(t)
	id := s.AssetID("000409", "draft", "sub-02/sub-02_ecephys.nwb")
	for _, address := range []string{
		s.URL() + "/dandisets/000409/versions/draft/assets/?path=sub-02/sub-02_ecephys.nwb",
		s.URL() + "/assets/" + id + "/",
		s.URL() + "/dandisets/000409/versions/draft/assets/" + id + "/",
	} {
		a, err := dandi.Lookup(context.Background(), address)
		if err != nil {
			t.Fatalf("%s: %v", address, err)
		}
		if a.ID != id || a.Path != "sub-02/sub-02_ecephys.nwb" || a.Size == 0 {
			t.Errorf("%s: %+v", address, a)
		}
	}
	if got := paths(t, s.URL()+"/dandisets/000409/versions/draft/assets/?path=sub-02/"); len(got) != 2 {
		t.Errorf("API folder URL listed %q", got)
	}
}

func TestErrorsNameWhatIsMissing(t *testing.T) {
	archive(t)
	ctx := context.Background()
	for _, tc := range []struct {
		address string
		want    []string
		is      error
	}{
		{inst + "000999", []string{"no dandiset 000999"}, dandi.ErrNotFound},
		{inst + "000409@0.999999.9999", []string{"dandiset 000409", "no version 0.999999.9999"}, dandi.ErrNotFound},
		{inst + "000409/sub-09/x.nwb", []string{"dandiset 000409@draft", "no asset sub-09/x.nwb"}, dandi.ErrNotFound},
		{inst + "000409/sub-09/", []string{"dandiset 000409@draft", "no folder sub-09/"}, dandi.ErrNotFound},
		{inst + "000409/sub-01/notes", []string{"no asset sub-01/notes"}, dandi.ErrNotFound},
		{inst + "000123", []string{"dandiset 000123", "HTTP 401", dandi.KeyEnv(danditest.Instance)}, dandi.ErrUnauthorized},
		{inst + "000123/secret.nwb", []string{"dandiset 000123", "HTTP 401", dandi.KeyEnv(danditest.Instance)}, dandi.ErrUnauthorized},
		{"dandi://nowhere/000409", []string{`unknown instance "nowhere"`}, nil},
	} {
		var err error
		for _, e := range dandi.Assets(ctx, tc.address) {
			if e != nil {
				err = e
				break
			}
		}
		if err == nil {
			t.Errorf("%s: no error", tc.address)
			continue
		}
		msg := err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", tc.address, msg, w)
			}
		}
		if strings.Contains(msg, "\n") || strings.Contains(msg, "unsupported") {
			t.Errorf("%s: %q is not one plain line", tc.address, msg)
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v is not %v", tc.address, err, tc.is)
		}
	}
}

func TestEmbargoKey(t *testing.T) {
	s := archive(t)
	env := dandi.KeyEnv(danditest.Instance)
	t.Setenv(env, "wrong")
	_, err := dandi.Lookup(context.Background(), inst+"000123/secret.nwb")
	if !errors.Is(err, dandi.ErrUnauthorized) || !strings.Contains(err.Error(), "HTTP 403") || !strings.Contains(err.Error(), env) {
		t.Fatalf("with a wrong key: %v", err)
	}
	t.Setenv(env, danditest.Key)
	if got := paths(t, inst+"000123"); !slices.Equal(got, []string{"secret.nwb"}) {
		t.Fatalf("with the key: %q", got)
	}
	// WithKey overrides the environment.
	if _, err := dandi.Lookup(context.Background(), inst+"000123/secret.nwb", dandi.WithKey(danditest.Instance, "")); !errors.Is(err, dandi.ErrUnauthorized) {
		t.Fatalf("WithKey(\"\"): %v", err)
	}
	if l := s.Leaked(); len(l) != 0 {
		t.Errorf("the key reached S3 or the precomputed service: %q", l)
	}
}

func TestInstancesEnv(t *testing.T) {
	for _, tc := range []struct {
		env string
		ok  bool
	}{
		{"mine=http://127.0.0.1:9/api", true},
		{"mine=http://[::1]:9/api,other=https://dandi.example.org/api", true},
		{"mine=http://dandi.example.org/api", false}, // a key could go in clear
		{"dandi=https://dandi.example.org/api", false},
		{"dandi=http://localhost:9/api", true},
		{"mine", false},
		{"mine=ftp://127.0.0.1/api", false},
		{"mine=https://user:pw@dandi.example.org/api", false},
		{"a/b=https://dandi.example.org/api", false},
	} {
		t.Setenv(dandi.InstancesEnv, tc.env)
		_, err := dandi.ParseAddress("dandi://dandi/000409")
		if (err == nil) != tc.ok {
			t.Errorf("%s=%q: %v, want ok %v", dandi.InstancesEnv, tc.env, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("%q shows the password", err)
		}
	}
	t.Setenv(dandi.InstancesEnv, "")
	if err := dandi.WithInstance("dandi", "https://evil.example.org/api"); err == nil {
		t.Error("nil option")
	}
	for range dandi.Assets(context.Background(), "dandi://dandi/000409", dandi.WithInstance("dandi", "https://evil.example.org/api")) {
		return
	}
	t.Error("moving the public instance elsewhere yielded nothing, want an error")
}

// TestWithInstance reaches the stand-in through the option instead of the
// environment.
func TestWithInstance(t *testing.T) {
	s := archive(t)
	t.Setenv(dandi.InstancesEnv, "")
	got := paths(t, "dandi://local/000409/sub-02/", dandi.WithInstance("local", s.URL()))
	if len(got) != 2 {
		t.Fatalf("%q", got)
	}
}
