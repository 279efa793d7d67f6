package driver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/lindigo/lindi/store"
)

func TestInlineRef(t *testing.T) {
	for _, data := range [][]byte{
		{}, []byte("hello"), {0, 1, 2, '\b', '"', '\\', '<', 0x7f}, {0x80, 0xff, 1}, []byte(`{"a":1}`),
	} {
		ref := InlineRef(data)
		var s string
		if err := json.Unmarshal(ref, &s); err != nil {
			t.Fatalf("%q: %s is not a JSON string: %v", data, ref, err)
		}
		ascii := !strings.ContainsFunc(string(data), func(r rune) bool { return r >= 0x80 })
		if got := strings.HasPrefix(s, "base64:"); got == ascii {
			t.Errorf("%q: ref %s: base64 %v, want %v", data, ref, got, !ascii)
		}
		if !ascii {
			b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "base64:"))
			if err != nil || string(b) != string(data) {
				t.Errorf("%q: ref %s decodes to %q, %v", data, ref, b, err)
			}
			continue
		}
		// The store decodes it back to the same bytes.
		st, err := store.ParseLINDIAt("x.json", "", []byte(`{"refs":{"k":`+string(ref)+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		v, err := st.Get(context.Background(), "k")
		if err != nil || string(v.Data) != string(data) {
			t.Errorf("%q: read back %q, %v", data, v.Data, err)
		}
	}
}
