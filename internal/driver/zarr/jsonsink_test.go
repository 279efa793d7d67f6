//go:build unix

package zarr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
)

var bg = context.Background()

// chunkOf is state i's one chunk, inline: i-dependent bytes, not all ASCII
// for most i (so base64).
func chunkOf(i int) []byte {
	b := make([]byte, 50+i%200)
	for k := range b {
		b[k] = byte(i*k + i)
	}
	return b
}

func docOf(i int, ref []byte) []byte {
	return fmt.Appendf(nil, `{"refs": {".zattrs": {"state": %d}, ".zgroup": {"zarr_format": 2}, "x/0": %s}}`, i, ref)
}

// readJSONState reads the .lindi.json at p as a reader does and checks that it
// is one whole state; it returns its number (0 for the empty document).
func readJSONState(p string) (int, error) {
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	st, err := store.ParseLINDI(p, data)
	if err != nil {
		return 0, err
	}
	v, err := st.Get(bg, ".zattrs")
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var i int
	if _, err := fmt.Sscanf(string(v.Data), `{"state": %d}`, &i); err != nil {
		return 0, fmt.Errorf(".zattrs %s: %v", v.Data, err)
	}
	c, err := st.Get(bg, "x/0")
	if err != nil {
		return 0, err
	}
	if !bytes.Equal(c.Data, chunkOf(i)) {
		return 0, fmt.Errorf("state %d: x/0 reads back other bytes", i)
	}
	return i, nil
}

func TestJSONSink(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lindi.json")
	c := JSONContainer{}
	if !c.Claims(p) || c.Claims("x.lindi.tar") {
		t.Fatal("Claims")
	}
	s, err := c.Create(bg, p, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the file before its first commit: %v, want none", err)
	}
	if err := s.Commit(bg, []byte(driver.EmptyDocument)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Create(bg, p, false); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over a file: %v", err)
	}
	if _, err := s.Member(bg, "blobs/x/0"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Member: %v", err)
	}
	for i := 1; i <= 4; i++ {
		ref, err := s.Blob(bg, "x/0", chunkOf(i))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Commit(bg, docOf(i, ref)); err != nil {
			t.Fatal(err)
		}
		if got, err := readJSONState(p); err != nil || got != i {
			t.Fatalf("state %d, %v; want %d", got, err, i)
		}
	}
	if err := s.Commit(bg, []byte(`{"nothing": 1}`)); err == nil {
		t.Error("committed a document without refs")
	}
	s.Close()
	if err := s.Commit(bg, docOf(5, []byte(`"x"`))); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("Commit after Close: %v", err)
	}
	s, doc, err := c.OpenSink(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.Contains(string(doc), `"state": 4`) {
		t.Errorf("OpenSink: %s", doc)
	}
	if _, _, err := c.OpenSink(bg, p+".none.json"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("OpenSink of a missing file: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

const jsonWriterEnv = "LINDI_JSON_CRASH_WRITER"

// TestHelperJSONWriter is the writer TestJSONCrash kills: it commits
// states, printing "begin <n>" and "done <n>" around each commit, and with
// a stage kills itself there.
func TestHelperJSONWriter(t *testing.T) {
	spec := os.Getenv(jsonWriterEnv)
	if spec == "" {
		t.Skip("the writer TestJSONCrash starts and kills")
	}
	path, stage, _ := strings.Cut(spec, "|")
	if stage != "" {
		jsonHook = func(s string) {
			if s == stage {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
		}
	}
	s, _, err := JSONContainer{}.OpenSink(bg, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	i, err := readJSONState(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	fmt.Println("ready")
	for range 1000 {
		i++
		ref, _ := s.Blob(bg, "x/0", chunkOf(i))
		fmt.Println("begin", i)
		if err := s.Commit(bg, docOf(i, ref)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(5)
		}
		fmt.Println("done", i)
	}
}

// TestJSONCrash kills a writer at each stage of a commit and at 100 random
// points: the document is always the last one committed or the one being
// committed, whole.
func TestJSONCrash(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.lindi.json")
	s, err := JSONContainer{}.Create(bg, p, false)
	if err == nil {
		err = s.Commit(bg, []byte(driver.EmptyDocument))
	}
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	state := 0
	rng := rand.New(rand.NewPCG(3, 4))
	kill := func(stage string, delay time.Duration) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperJSONWriter$")
		cmd.Env = append(os.Environ(), jsonWriterEnv+"="+p+"|"+stage, "GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		last, begun := state, state
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if f[0] == "ready" && stage == "" {
				time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
			}
			if len(f) == 2 {
				n, _ := strconv.Atoi(f[1])
				if f[0] == "done" {
					last = n
				} else {
					begun = n
				}
			}
		}
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("the writer was not killed: %v\n%s", err, stderr.Bytes())
		}
		got, err := readJSONState(p)
		if err != nil {
			t.Fatalf("killed at %q: %v", stage, err)
		}
		if got != last && got != begun {
			t.Fatalf("killed at %q: state %d, want %d or %d", stage, got, last, begun)
		}
		state = got
	}
	for _, stage := range []string{"written", "synced", "renamed", "done"} {
		kill(stage, 0)
	}
	for range 100 {
		kill("", time.Duration(rng.IntN(3000))*time.Microsecond)
	}
	s, _, err = JSONContainer{}.OpenSink(bg, p)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := s.Blob(bg, "x/0", chunkOf(state+1))
	if err := s.Commit(bg, docOf(state+1, ref)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if got, err := readJSONState(p); err != nil || got != state+1 {
		t.Fatalf("after a last commit: %d, %v", got, err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(p)); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}
