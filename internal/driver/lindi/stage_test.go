package lindi

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/driver"
)

// TestStaleStages: Create removes what writers that stopped before their
// first commit left (unlocked, old), not what a live writer holds; with
// replace it refuses a container another process is writing.
func TestStaleStages(t *testing.T) {
	for _, name := range []string{"x.lindi.tar", "x.lindi.d"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, name)
			c := driver.ContainerFor(Containers(), p)
			old := time.Now().Add(-time.Minute)
			// A killed writer's stage: the name TempName gives, with the pid
			// of a process that has exited.
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			if err := cmd.Run(); err != nil {
				t.Fatal(err)
			}
			stale := filepath.Join(dir, "."+name+".tmp-"+strconv.Itoa(cmd.Process.Pid)+"-abcdefghij")
			if err := os.WriteFile(stale, []byte("left by a killed writer"), 0o644); err != nil {
				t.Fatal(err)
			}
			os.Chtimes(stale, old, old)
			live, err := c.Create(ctx, p, false) // a writer that has not committed
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the stale stage is still there (%v)", err)
			}
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				os.Chtimes(filepath.Join(dir, e.Name()), old, old)
			}
			s, err := c.Create(ctx, p, false)
			if err != nil {
				t.Fatal(err)
			}
			if after, _ := os.ReadDir(dir); len(after) != len(ents)+1 {
				t.Errorf("a live writer's stage was removed: %d entries, want %d", len(after), len(ents)+1)
			}
			if err := s.Commit(ctx, prettyEmpty()); err != nil {
				t.Fatal(err)
			}
			// s holds p: a replacement is refused while it writes.
			if _, err := c.Create(ctx, p, true); !errors.Is(err, ErrLocked) {
				t.Errorf("replacing a container being written: %v, want ErrLocked", err)
			}
			s.Close()
			live.Close()
			if after, _ := os.ReadDir(dir); len(after) != 1 {
				t.Errorf("left: %v", after)
			}
		})
	}
}
