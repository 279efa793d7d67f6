package dandi_test

import (
	"strings"
	"testing"

	"github.com/lindigo/lindi/dandi"
)

const id = "7d38bd0d-5a44-4cd5-9a3b-7c1e0e64a3f1"

func TestParseAddress(t *testing.T) {
	t.Setenv(dandi.InstancesEnv, "")
	api := "https://api.dandiarchive.org/api"
	for _, tc := range []struct {
		in     string
		want   dandi.Address
		folder bool
		str    string
	}{
		{"dandi://DANDI/000409@draft", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft"}, true, "dandi://dandi/000409@draft"},
		{"dandi://dandi/000409", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft"}, true, "dandi://dandi/000409@draft"},
		{"dandi://dandi/000409@0.230101.1200/sub-01/sub-01_ecephys.nwb", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "0.230101.1200", Path: "sub-01/sub-01_ecephys.nwb"}, false, ""},
		{"dandi://dandi-sandbox/000409/sub-01/", dandi.Address{Instance: "dandi-sandbox", APIURL: "https://api.sandbox.dandiarchive.org/api", Dandiset: "000409", Version: "draft", Path: "sub-01/"}, true, "dandi://dandi-sandbox/000409@draft/sub-01/"},
		{"dandi://dandi-staging/000409", dandi.Address{Instance: "dandi-staging", APIURL: "https://api-staging.dandiarchive.org/api", Dandiset: "000409", Version: "draft"}, true, ""},
		{"dandi://linc/000010", dandi.Address{Instance: "linc", APIURL: "https://api.lincbrain.org/api", Dandiset: "000010", Version: "draft"}, true, ""},
		{"dandi://ember/000010", dandi.Address{Instance: "ember", APIURL: "https://api-dandi.emberarchive.org/api", Dandiset: "000010", Version: "draft"}, true, ""},
		{"dandi://dandi-api-local-docker-tests/000001", dandi.Address{Instance: "dandi-api-local-docker-tests", APIURL: "http://localhost:8000/api", Dandiset: "000001", Version: "draft"}, true, ""},
		{api + "/dandisets/000409/versions/draft/assets/?path=sub-01/x.nwb", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft", Path: "sub-01/x.nwb"}, false, "dandi://dandi/000409@draft/sub-01/x.nwb"},
		{api + "/dandisets/000409/", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft"}, true, ""},
		{api + "/dandisets/000409/versions/0.230101.1200/", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "0.230101.1200"}, true, ""},
		{api + "/assets/" + id + "/", dandi.Address{Instance: "dandi", APIURL: api, AssetID: id}, false, api + "/assets/" + id + "/"},
		{api + "/assets/" + id + "/download/", dandi.Address{Instance: "dandi", APIURL: api, AssetID: id}, false, ""},
		{api + "/dandisets/000409/versions/draft/assets/" + id + "/", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft", AssetID: id}, false, ""},
		{"https://dandiarchive.org/dandiset/000409", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft"}, true, ""},
		{"https://dandiarchive.org/dandiset/000409/0.230101.1200/files?location=sub-01%2F", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "0.230101.1200", Path: "sub-01/"}, true, ""},
		{"https://dandiarchive.org/dandiset/000409/draft/files?location=sub-01", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft", Path: "sub-01/"}, true, ""},
		{"https://dandiarchive.org/#/dandiset/000409/draft", dandi.Address{Instance: "dandi", APIURL: api, Dandiset: "000409", Version: "draft"}, true, ""},
		{"https://sandbox.dandiarchive.org/dandiset/000409", dandi.Address{Instance: "dandi-sandbox", APIURL: "https://api.sandbox.dandiarchive.org/api", Dandiset: "000409", Version: "draft"}, true, ""},
	} {
		a, err := dandi.ParseAddress(tc.in)
		if err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if a != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.in, a, tc.want)
		}
		if a.IsFolder() != tc.folder {
			t.Errorf("%s: IsFolder %v", tc.in, a.IsFolder())
		}
		if tc.str != "" && a.String() != tc.str {
			t.Errorf("%s: String() = %q, want %q", tc.in, a.String(), tc.str)
		}
		if b, err := dandi.ParseAddress(a.String()); err != nil || b != a {
			t.Errorf("%s: String() %q parses as %+v, %v", tc.in, a.String(), b, err)
		}
	}
}

func TestParseAddressErrors(t *testing.T) {
	t.Setenv(dandi.InstancesEnv, "")
	for _, tc := range []struct{ in, want string }{
		{"dandi://nowhere/000409", `unknown instance "nowhere"`},
		{"dandi://dandi/409", `dandiset ID "409"`},
		{"dandi://dandi/00040x", `dandiset ID "00040x"`},
		{"dandi://dandi/000409@latest", `version "latest"`},
		{"dandi://dandi/000409@1.2.3", `version "1.2.3"`},
		{"dandi://dandi/000409/a/../b", `segment`},
		{"dandi://dandi/000409/a//b", `segment`},
		{"dandi://dandi/000409/a\x01b", `control`},
		{"dandi://dandi/", `dandiset ID ""`},
		{"https://example.org/dandiset/000409", `"example.org" is not`},
		{"https://api.dandiarchive.org/api/assets/xyz/", `not a UUID`},
		{"https://api.dandiarchive.org/api/zarr/abc/", `names no dandiset`},
		{"https://dandiarchive.org/about", `not a dandiset's`},
		{"s3://dandiarchive/blobs/x", `not a dandi:// address`},
		{"sub-01.nwb", `not a dandi:// address`},
	} {
		_, err := dandi.ParseAddress(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error saying %q", tc.in, err, tc.want)
		}
	}
}
