package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// umask sets the process's umask for the test (no test here runs in
// parallel) and returns the mode a new file gets.
func umask(t *testing.T, mask int) fs.FileMode {
	if runtime.GOOS == "windows" {
		t.Skip("no umask")
	}
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
	return Perm &^ fs.FileMode(mask)
}

// TestModes: a new file has mode 0666 less the umask, as os.Create gives
// it (not os.CreateTemp's 0600); a replaced file keeps its mode.
func TestModes(t *testing.T) {
	want := umask(t, 0o002)
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := WriteFile(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != want {
		t.Errorf("new file: mode %v, want %v", st.Mode().Perm(), want)
	}
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: mode %v, want 0640", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	tmp, f, err := CreateTemp(p, Perm)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if st, _ := os.Stat(tmp); st.Mode().Perm() != want {
		t.Errorf("temporary: mode %v, want %v", st.Mode().Perm(), want)
	}
}

// TestFailureLeavesNothing: a write that fails leaves the old file and no
// temporary.
func TestFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := WriteFile(p, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Replace(p, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	}, nil)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("left %v", ents)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("content %q", b)
	}
}

// deadPID is the pid of a process that has exited.
func deadPID(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	if running(pid) {
		t.Skip("the pid was reused at once")
	}
	return pid
}

// TestRemoveStale removes what a killed writer of the same target left,
// and nothing else: not a live process's temporary, not a fresh one, not
// another target's, not a name it did not make.
func TestRemoveStale(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process check")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "out.lindi.tar")
	dead := strconv.Itoa(deadPID(t))
	old := time.Now().Add(-time.Minute)
	files := map[string]bool{ // name → removed
		".out.lindi.tar.tmp-" + dead + "-abcdefghij":                      true,
		".out.lindi.tar.tmp-" + strconv.Itoa(os.Getpid()) + "-abcdefghij": false, // a live writer
		".other.tmp-" + dead + "-abcdefghij":                              false,
		".out.lindi.tar.tmp-abcdefghij":                                   false, // no pid: not provably ours
		"out.lindi.tar":                                                   false,
	}
	for name := range files {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(filepath.Join(dir, name), old, old)
	}
	fresh := ".out.lindi.tar.tmp-" + dead + "-fresh"
	os.WriteFile(filepath.Join(dir, fresh), nil, 0o644)
	files[fresh] = false // unchanged for less than StaleAge
	kept := ".out.lindi.tar.tmp-" + dead + "-kept"
	os.Mkdir(filepath.Join(dir, kept), 0o755)
	os.Chtimes(filepath.Join(dir, kept), old, old)
	files[kept] = false // refused by keep
	RemoveStale(p, func(tmp string) bool { return filepath.Base(tmp) == kept })
	for name, removed := range files {
		_, err := os.Stat(filepath.Join(dir, name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
	// Replace removes them too.
	stale := filepath.Join(dir, ".out.lindi.tar.tmp-"+dead+"-again")
	os.WriteFile(stale, nil, 0o644)
	os.Chtimes(stale, old, old)
	if err := WriteFile(p, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Replace left %s", stale)
	}
}
