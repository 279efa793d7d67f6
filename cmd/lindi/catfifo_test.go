//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCatOutputDevice: -o naming a file that is not a regular one (here a
// named pipe, as /dev/null is a device) writes into it in place, and leaves
// it what it was: renaming a temporary file over it would replace it.
func TestCatOutputDevice(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	code, _, stderr := lindi("cat", "-o", fifo, filepath.Join(fixtures, "fixture.lindi.json"), "misc/compound")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fi, err := os.Lstat(fifo)
	if err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("%s is no longer a named pipe: %v, %v", fifo, fi.Mode(), err)
	}
	if s := <-got; !strings.Contains(s, "{x: 5, y: 1.0}") {
		t.Fatalf("the pipe read %q", s)
	}
}
