package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/internal/npy"
)

// TestWriteCommands runs cp, put, attr and rm as a user would, on each
// container, and reads the results back through the other commands.
func TestWriteCommands(t *testing.T) {
	src := filepath.Join(fixtures, "fixture.h5")
	for _, ext := range []string{".lindi.json", ".lindi.tar", ".lindi.d"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "amended"+ext)
			ok := func(args ...string) string {
				t.Helper()
				code, stdout, stderr := lindi(args...)
				if code != 0 {
					t.Fatalf("lindi %s: exit %d: %s", strings.Join(args, " "), code, stderr)
				}
				return stdout
			}
			if s := ok("cp", src, out); s != "" {
				t.Errorf("cp printed %q", s)
			}
			if a, b := ok("cat", src, "misc/f4_2d_edge", "0:3, :"), ok("cat", out, "misc/f4_2d_edge", "0:3, :"); a != b {
				t.Errorf("cp: the copy reads\n%s\nthe source\n%s", b, a)
			}
			npyFile := filepath.Join(dir, "x.npy")
			data := make([]byte, 2*24*5)
			for i := range 24 * 5 {
				binary.LittleEndian.PutUint16(data[2*i:], uint16(i*3))
			}
			fh, err := os.Create(npyFile)
			if err != nil {
				t.Fatal(err)
			}
			if err := npy.Write(fh, &npy.Array{Descr: "<i2", Shape: []int{24, 5}, Data: data}); err != nil {
				t.Fatal(err)
			}
			fh.Close()
			ok("put", "--chunks", "10,5", "--codec", `{"id":"zlib","level":4}`, out, "processing/new/x", npyFile)
			if got := ok("cat", out, "processing/new/x", "1, :"); !strings.Contains(got, "15\n18\n21\n24\n27") {
				t.Errorf("put: reads %q", got)
			}
			info := ok("info", out, "processing/new/x")
			if !strings.Contains(info, `"zlib"`) || !strings.Contains(info, "10,") {
				t.Errorf("put: codec or chunks not as asked:\n%s", info)
			}
			ok("put", out, "processing/new/x", npyFile) // replaced, lindi's defaults
			if info := ok("info", out, "processing/new/x"); !strings.Contains(info, "blosc") {
				t.Errorf("put again: not replaced with lindi's default codec:\n%s", info)
			}
			ok("attr", out, "processing/new/x", "rate", "30000.0")
			ok("attr", out, "processing/new/x", "unit", `"mV"`)
			ok("attr", out, "processing/new", "sizes", "[1, 2]")
			if got := ok("cat", out, "processing/new/x@rate"); strings.TrimSpace(got) != "30000.0" {
				t.Errorf("rate reads %q, want the float 30000.0", got)
			}
			ok("attr", "--delete", out, "processing/new/x", "unit")
			if code, _, _ := lindi("cat", out, "processing/new/x@unit"); code == 0 {
				t.Error("a deleted attribute still reads")
			}
			before := size(t, out)
			ok("rm", out, "processing/new")
			if ext != ".lindi.json" {
				ok("compact", out)
				if after := size(t, out); after >= before {
					t.Errorf("compact: %d bytes before rm, %d after rm and compact", before, after)
				}
			}
			if code, _, _ := lindi("ls", out, "processing/new"); code == 0 {
				t.Error("a removed group still lists")
			}
			if got := ok("ls", out); !strings.Contains(got, "misc") {
				t.Errorf("after rm the rest is gone:\n%s", got)
			}
		})
	}
}

func TestWriteCommandErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.lindi.tar")
	if code, _, stderr := lindi("cp", filepath.Join(fixtures, "fixture.h5"), out); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"attr value not JSON", []string{"attr", out, "/", "x", "mV"}, 2, "not JSON"},
		{"attr object", []string{"attr", out, "/", "x", `{"a":1}`}, 2, "object"},
		{"attr reserved name", []string{"attr", out, "/", "_SCALAR", "true"}, 1, "reserved"},
		{"attr NaN string", []string{"attr", out, "/", "x", `"NaN"`}, 1, "reserved"},
		{"attr mixed list", []string{"attr", out, "/", "x", `[1, "a"]`}, 1, "mixed list"},
		{"amend HDF5", []string{"attr", filepath.Join(fixtures, "fixture.h5"), "/", "x", "1"}, 1, "amendable copy"},
		{"rm missing", []string{"rm", out, "nowhere"}, 1, "nowhere"},
		{"rm dotdot", []string{"rm", out, "a/../b"}, 1, ".."},
		{"cp over existing", []string{"cp", filepath.Join(fixtures, "fixture.h5"), out}, 1, "--force replaces it"},
		{"cp to a non-LINDI name", []string{"cp", filepath.Join(fixtures, "fixture.h5"), filepath.Join(dir, "x.h5")}, 1, "LINDI"},
		{"put missing npy", []string{"put", out, "a", filepath.Join(dir, "none.npy")}, 1, "none.npy"},
		{"put bad chunks", []string{"put", "--chunks", "0,5", out, "a", "x.npy"}, 2, "chunks"},
		{"put bad codec", []string{"put", "--codec", "{", out, "a", "x.npy"}, 2, "codec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := lindi(tc.args...)
			first, _, _ := strings.Cut(stderr, "\n")
			if code != tc.code || !strings.Contains(first, tc.msg) || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d naming %q", code, stdout, stderr, tc.code, tc.msg)
			}
		})
	}
	// A failed command leaves the file at its last committed state.
	if code, stdout, _ := lindi("ls", out); code != 0 || !strings.Contains(stdout, "misc") {
		t.Errorf("after the failures the file lists:\n%s", stdout)
	}
}

// size is the bytes of a file, or of the files of a directory.
func size(t *testing.T, name string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(name, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCreateModesCLI: cp --force replaces its output; put creates a missing
// file, fails at once on an output it cannot make, and with --force makes
// the file anew; a put that fails leaves no new file behind.
func TestCreateModesCLI(t *testing.T) {
	dir := t.TempDir()
	npyFile := filepath.Join(dir, "x.npy")
	fh, err := os.Create(npyFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(fh, &npy.Array{Descr: "<i2", Shape: []int{4}, Data: make([]byte, 8)}); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	run := func(wantCode int, args ...string) string {
		t.Helper()
		code, stdout, stderr := lindi(args...)
		if code != wantCode {
			t.Fatalf("lindi %s: exit %d, want %d: %s", strings.Join(args, " "), code, wantCode, stderr)
		}
		return stdout + stderr
	}
	for _, ext := range []string{".lindi.json", ".lindi.tar", ".lindi.d"} {
		t.Run(ext, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "x"+ext)
			run(0, "put", out, "a/x", npyFile) // missing: created
			if ls := run(0, "ls", "-r", out); !strings.Contains(ls, "a/x") {
				t.Fatalf("put into a new file lists:\n%s", ls)
			}
			run(0, "put", out, "b/y", npyFile) // existing: amended
			run(0, "cp", "--force", filepath.Join(fixtures, "fixture.h5"), out)
			if ls := run(0, "ls", out); strings.Contains(ls, "/a ") || !strings.Contains(ls, "/misc ") {
				t.Fatalf("cp --force: the file lists\n%s", ls)
			}
			run(0, "put", "--force", out, "c", npyFile)
			if ls := run(0, "ls", out); strings.Contains(ls, "/misc ") || !strings.Contains(ls, "/c ") {
				t.Fatalf("put --force: the file lists\n%s", ls)
			}
			fresh := filepath.Join(filepath.Dir(out), "new"+ext)
			msg := run(1, "put", fresh, "c", filepath.Join(dir, "none.npy"))
			if _, err := os.Stat(fresh); err == nil || !strings.Contains(msg, "none.npy") {
				t.Fatalf("a failed put into a new file: %q, and the file is there (%v)", msg, err)
			}
			if es, _ := os.ReadDir(filepath.Dir(out)); len(es) != 1 {
				t.Fatalf("left behind: %v", es)
			}
		})
	}
	// The output is opened before the data is read: a missing directory
	// is named, not the (missing) .npy.
	msg := run(1, "put", filepath.Join(dir, "no", "x.lindi.tar"), "c", filepath.Join(dir, "none.npy"))
	if strings.Contains(msg, "none.npy") || !strings.Contains(msg, filepath.Join(dir, "no")) {
		t.Fatalf("put into a missing directory: %q", msg)
	}
}
