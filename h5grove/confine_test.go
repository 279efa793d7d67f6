package h5grove

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

const secret = "TOPSECRET-0123456789"

// refsDoc is a LINDI JSON document whose dataset /leak is the len(secret)
// bytes ref names.
func refsDoc(ref string) string {
	return fmt.Sprintf(`{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		"leak/.zarray": {"chunks": [%d], "compressor": null, "dtype": "|u1", "fill_value": 0, "filters": null, "order": "C", "shape": [%d], "zarr_format": 2},
		"leak/0": [%q, 0, %d]}}`, len(secret), len(secret), ref, len(secret))
}

// hostileDir makes a served directory beside a directory holding the
// secret, and returns both.
func hostileDir(t *testing.T) (served, outside string) {
	t.Helper()
	top := t.TempDir()
	served, outside = filepath.Join(top, "served"), filepath.Join(top, "outside")
	for _, d := range []string{served, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "secret"), secret)
	write(t, filepath.Join(served, "chunk.bin"), strings.ToUpper(secret[:0])+"inside-0123456789abc")
	return served, outside
}

func write(t *testing.T, name, content string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConfinedRefs: a served LINDI file whose refs lead out of the
// directory, by path, file: URL, "..", a symbolic link or a URL, is
// refused; the secret's bytes never appear in an answer, and the message
// names nothing outside and tells nothing of the remote port.
func TestConfinedRefs(t *testing.T) {
	served, outside := hostileDir(t)
	var hits atomic.Int32
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(secret))
	}))
	defer remote.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(served, "inner")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(served, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"abs":    filepath.Join(outside, "secret"),
		"file":   "file://" + filepath.Join(outside, "secret"),
		"dotdot": "../outside/secret",
		"link":   "inner",
		"fifo":   "fifo",
		"remote": remote.URL + "/secret",
		"closed": closedURL + "/secret",
	}
	for name, ref := range cases {
		write(t, filepath.Join(served, name+".lindi.json"), refsDoc(ref))
	}
	write(t, filepath.Join(served, "ok.lindi.json"), refsDoc("chunk.bin"))
	ts := serve(t, Dir(served))
	if a := get(t, ts, "/data", "file", "ok.lindi.json", "path", "/leak", "format", "bin"); a.status != 200 || string(a.body) != "inside-0123456789abc" {
		t.Fatalf("a ref inside: %d %q", a.status, a.body)
	}
	msgs := map[string]string{}
	for name := range cases {
		a := get(t, ts, "/data", "file", name+".lindi.json", "path", "/leak", "format", "bin")
		if bytes.Contains(a.body, []byte(secret)) || a.status != http.StatusForbidden {
			t.Errorf("%s: status %d: %q", name, a.status, a.body)
			continue
		}
		msgs[name] = a.message(t)
		for _, word := range []string{"outside/secret", "passwd", "127.0.0.1", "inner", "connection refused"} {
			if strings.Contains(msgs[name], word) {
				t.Errorf("%s: the message names %q: %s", name, word, msgs[name])
			}
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the server fetched a remote ref %d times", hits.Load())
	}
	if strings.ReplaceAll(msgs["remote"], `"remote.`, `"X.`) != strings.ReplaceAll(msgs["closed"], `"closed.`, `"X.`) {
		t.Errorf("an open and a closed port answer differently:\n%s\n%s", msgs["remote"], msgs["closed"])
	}

	// Allowed, a remote ref is read.
	open := serve(t, Dir(served), WithRemote())
	if a := get(t, open, "/data", "file", "remote.lindi.json", "path", "/leak", "format", "bin"); a.status != 200 || string(a.body) != secret {
		t.Errorf("with WithRemote: %d %q", a.status, a.body)
	}
}

// TestConfinedExternalLinks: an HDF5 file in the served directory whose
// external link leads out of it (by "..", an absolute path or a symbolic
// link) does not serve the other file's data.
func TestConfinedExternalLinks(t *testing.T) {
	orig, err := os.ReadFile("../testdata/parity/features.h5")
	if err != nil {
		t.Fatal(err)
	}
	target, err := os.ReadFile("../testdata/parity/ext-target.h5")
	if err != nil {
		t.Fatal(err)
	}
	served, outside := hostileDir(t)
	// Link names of the same length as "ext-target.h5", so the file's
	// structure is unchanged.
	write(t, filepath.Join(outside, "xsecret.h5"), string(target))
	write(t, filepath.Join(served, "dotdot.h5"), string(bytes.ReplaceAll(orig, []byte("ext-target.h5"), []byte("../outside/xs"))))
	write(t, filepath.Join(served, "abs.h5"), string(bytes.ReplaceAll(orig, []byte("ext-target.h5"), []byte("/etc///passwd"))))
	write(t, filepath.Join(served, "link.h5"), string(orig))
	if err := os.Symlink(filepath.Join(outside, "xsecret.h5"), filepath.Join(served, "ext-target.h5")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("xsecret.h5", filepath.Join(outside, "xs")); err != nil {
		t.Fatal(err)
	}
	// Unconfined, the links read the other file: the cases are live.
	free := serve(t, Files{"dotdot.h5": filepath.Join(served, "dotdot.h5")})
	if a := get(t, free, "/data", "file", "dotdot.h5", "path", "/ext"); a.status != 200 || string(a.body) != "[0,1,2,3]" {
		t.Fatalf("unconfined: %d %s", a.status, a.body)
	}
	ts := serve(t, Dir(served))
	for _, name := range []string{"dotdot.h5", "abs.h5", "link.h5"} {
		a := get(t, ts, "/data", "file", name, "path", "/ext")
		if a.status == 200 || strings.Contains(string(a.body), "[0,1,2,3]") {
			t.Errorf("%s: %d %s", name, a.status, a.body)
			continue
		}
		if msg := a.message(t); strings.Contains(msg, "passwd") || strings.Contains(msg, "outside") && !strings.Contains(msg, "outside the served") || strings.Contains(msg, "xsecret") {
			t.Errorf("%s: the message names the target: %s", name, msg)
		}
	}
	if a := get(t, ts, "/data", "file", "link.h5", "path", "/grid"); a.status != 200 {
		t.Errorf("the rest of the file: %d %s", a.status, a.body)
	}
}
