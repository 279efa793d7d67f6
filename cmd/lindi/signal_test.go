//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalLeavesNothing: lindi stopped by SIGTERM or SIGINT while it
// writes a new .lindi.tar (put, blocked reading its .npy from a named pipe
// no one writes) leaves neither the output nor its hidden staged file.
func TestSignalLeavesNothing(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "data.npy")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip(err)
			}
			out := filepath.Join(dir, "out.lindi.tar")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "LINDI_TEST_RUN_MAIN=1", "LINDI_TEST_ARGS="+strings.Join([]string{"put", out, "x", fifo, ""}, "\x1f"))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			staged := func() bool {
				ents, _ := os.ReadDir(dir)
				for _, e := range ents {
					if strings.HasPrefix(e.Name(), ".out.lindi.tar.tmp-") {
						return true
					}
				}
				return false
			}
			for deadline := time.Now().Add(20 * time.Second); !staged(); time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatal("the staged output never appeared")
				}
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				if e.Name() != "data.npy" {
					t.Errorf("left %s", e.Name())
				}
			}
		})
	}
}
