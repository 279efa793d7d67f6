//go:build unix

package lindibeam

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// deadPid returns the id of a process of this host that has ended.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("cannot run true:", err)
	}
	return cmd.Process.Pid
}

// TestWriteOutputLocal writes a local output twice under umask 022: it is
// 0644 (0666 minus the umask, as os.Create makes it), the temporaries a
// killed process of this host left for it are removed, and those of a
// running process, of another output or not named by this package stay.
func TestWriteOutputLocal(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	name := filepath.Join(dir, "sub", "rows.csv")
	if err := WriteOutput(context.Background(), name, []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	prefix := filepath.Join(dir, "sub", tempPrefix(name))
	stale := prefix + strconv.Itoa(deadPid(t)) + "-abc.tmp"
	live := prefix + strconv.Itoa(os.Getppid()) + "-abc.tmp"
	other := filepath.Join(dir, "sub", tempPrefix(filepath.Join(dir, "other.csv"))+strconv.Itoa(deadPid(t))+"-abc.tmp")
	foreign := filepath.Join(dir, "sub", ".rows.csv.12345.tmp")
	for _, f := range []string{stale, live, other, foreign} {
		if err := os.WriteFile(f, []byte("partial"), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteOutput(context.Background(), name, []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	if _, err := os.Stat(stale); err == nil {
		t.Errorf("the dead process's temporary is still there")
	}
	for _, f := range []string{live, other, foreign} {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed: %v", filepath.Base(f), err)
		}
	}
	if b, _ := os.ReadFile(name); string(b) != "b\n" {
		t.Errorf("content %q", b)
	}
}

// TestLockManifest: a manifest has one writer at a time; the lock of a
// process that is gone is taken over; taking it removes the manifest of an
// earlier run.
func TestLockManifest(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "m.jsonl")
	os.WriteFile(name, []byte(`{"source":"old"}`+"\n"), 0o666)
	unlock, err := LockManifest(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(name); err == nil {
		t.Errorf("the earlier run's manifest is still there")
	}
	if _, err := LockManifest(name); err == nil || !strings.Contains(err.Error(), "another job") {
		t.Errorf("a second writer: %v", err)
	}
	unlock()
	host, _ := os.Hostname()
	os.WriteFile(name+".lock", []byte(host+" "+strconv.Itoa(deadPid(t))+"\n"), 0o666)
	unlock, err = LockManifest(name)
	if err != nil {
		t.Fatalf("a dead process's lock: %v", err)
	}
	unlock()
	if _, err := os.Stat(name + ".lock"); err == nil {
		t.Errorf("unlock left the lock")
	}
}

// TestIndexOutputs indexes local files into a local directory (under umask
// 022) and into a memfs:// folder: each output is written, named in the
// manifest by its place on that file system, with the same refs on both;
// the local ones are 0644 and no temporary is left beside them.
func TestIndexOutputs(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	srcs := []string{"../../testdata/nwb/tables.nwb", "../../testdata/conformance/fixture.h5"}
	dir := t.TempDir()
	local := filepath.Join(dir, "idx")
	runIndex(t, srcs, local, "memfs://outputs/local-manifest.jsonl")
	runIndex(t, srcs, "memfs://outputs/idx/", filepath.Join(dir, "mem-manifest.jsonl"))
	for _, name := range []string{"tables.nwb.lindi.json", "fixture.h5.lindi.json"} {
		a, err := os.ReadFile(filepath.Join(local, name))
		if err != nil {
			t.Fatal(err)
		}
		b := readOut(t, "memfs://outputs/idx/"+name)
		if !jsonEqual(t, refsOf(t, a), refsOf(t, b)) {
			t.Errorf("%s: the refs written locally and on memfs differ", name)
		}
		if st, err := os.Stat(filepath.Join(local, name)); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, want mode 0644", name, err)
		}
	}
	if entries, _ := os.ReadDir(local); len(entries) != 2 {
		t.Errorf("%d files in the output directory, want the 2 outputs", len(entries))
	}
	m := string(readOut(t, filepath.Join(dir, "mem-manifest.jsonl")))
	if strings.Count(m, `"output":"memfs://outputs/idx/`) != 2 || strings.Contains(m, `"error":"`) {
		t.Errorf("manifest of the memfs run:\n%s", m)
	}
	if m := string(readOut(t, "memfs://outputs/local-manifest.jsonl")); strings.Count(m, `"output":"`+local) != 2 {
		t.Errorf("manifest of the local run:\n%s", m)
	}
}
