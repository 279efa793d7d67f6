//go:build unix

package lindi

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lindigo/lindi/internal/driver"
	"golang.org/x/sync/errgroup"
)

// writerEnv carries the orders of TestHelperWriter: kind|path|stage|nth|states.
const writerEnv = "LINDI_CRASH_WRITER"

// crashChunks is how many blobs each state writes, concurrently.
const crashChunks = 4

// TestHelperWriter is the writer TestCrash kills: it opens the container,
// then writes and commits states one after another, printing "begin <n>
// <sha256 of the document>" before each commit and "done <n>" after it.
// With a stage it kills itself there, in its nth commit.
func TestHelperWriter(t *testing.T) {
	spec := os.Getenv(writerEnv)
	if spec == "" {
		t.Skip("the writer TestCrash starts and kills")
	}
	f := strings.Split(spec, "|")
	kind, path, stage := f[0], f[1], f[2]
	nth, _ := strconv.Atoi(f[3])
	states, _ := strconv.Atoi(f[4])
	if stage != "" {
		seen := 0
		hook = func(s string) {
			if s == stage {
				if seen++; seen == nth {
					syscall.Kill(os.Getpid(), syscall.SIGKILL)
					select {}
				}
			}
		}
	}
	die := func(code int, err error) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(code)
	}
	s, doc, err := crashContainer(kind).OpenSink(ctx, path)
	if err != nil {
		die(3, err)
	}
	i, err := stateOf(doc)
	if err != nil {
		die(3, err)
	}
	fmt.Println("ready")
	for range states {
		i++
		refs := make([]json.RawMessage, crashChunks)
		var g errgroup.Group
		for j := range crashChunks {
			g.Go(func() (err error) {
				refs[j], err = s.Blob(ctx, chunkKey(j), chunkData(i, j))
				return err
			})
		}
		if err := g.Wait(); err != nil {
			die(4, err)
		}
		d := crashDoc(i, refs)
		fmt.Printf("begin %d %s\n", i, docHash(d))
		if err := s.Commit(ctx, d); err != nil {
			die(5, err)
		}
		fmt.Printf("done %d\n", i)
	}
	if err := s.Close(); err != nil {
		die(6, err)
	}
}

func crashContainer(kind string) driver.Container {
	if kind == "dir" {
		return DirContainer{}
	}
	return TarContainer{}
}

func chunkKey(j int) string { return "x/" + strconv.Itoa(j) }

// chunkData is chunk j of state i: 600 to 3600 bytes that differ from
// state to state.
func chunkData(i, j int) []byte {
	b := make([]byte, 600+(i*131+j*977)%3000)
	for k := range b {
		b[k] = byte((i*7 + j*13 + k) % 251)
	}
	return b
}

// crashDoc is the document of state i, its chunks at refs; its size varies
// from state to state so that lindi.json outgrows its room now and then.
func crashDoc(i int, refs []json.RawMessage) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"refs\": {\n    \".zattrs\": {\"pad\": %q, \"state\": %d},\n    \".zgroup\": {\"zarr_format\": 2}",
		strings.Repeat("p", (i*997)%12000), i)
	for j, r := range refs {
		fmt.Fprintf(&b, ",\n    %q: %s", chunkKey(j), r)
	}
	b.WriteString("\n  }\n}")
	return b.Bytes()
}

func docHash(doc []byte) string {
	h := sha256.Sum256(trimPadding(doc))
	return hex.EncodeToString(h[:8])
}

// stateOf is the state number of a document: 0 for the empty one.
func stateOf(doc []byte) (int, error) {
	var d struct {
		Refs struct {
			Attrs *struct{ State int } `json:".zattrs"`
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return 0, err
	}
	if d.Refs.Attrs == nil {
		return 0, nil
	}
	return d.Refs.Attrs.State, nil
}

// checkState checks that st is state i's, whole.
func checkState(st *state) (int, error) {
	i, err := stateOf(st.doc)
	if err != nil || i == 0 {
		return i, err
	}
	if len(st.chunks) != crashChunks {
		return i, fmt.Errorf("state %d has %d chunks, want %d", i, len(st.chunks), crashChunks)
	}
	for j := range crashChunks {
		if !bytes.Equal(st.chunks[chunkKey(j)], chunkData(i, j)) {
			return i, fmt.Errorf("state %d: chunk %s reads back different bytes", i, chunkKey(j))
		}
	}
	return i, nil
}

// run is one writer's life: what it printed and how it ended.
type run struct {
	begun  map[int]string // state → hash of its document
	done   int            // the last state committed, or -1
	dones  int            // how many commits it completed
	killed bool
	busy   time.Duration // from ready to its last commit
}

// startWriter runs TestHelperWriter on path and kills it after delay once
// it is ready, unless stage is set (then it kills itself there) or delay
// is negative (then it runs to its end).
func startWriter(t *testing.T, kind, path, stage string, nth, states int, delay time.Duration) run {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%s|%s|%d|%d", writerEnv, kind, path, stage, nth, states),
		"GORACE=atexit_sleep_ms=0 "+os.Getenv("GORACE")) // under -race, a writer that ends would wait 1 s
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := run{begun: map[int]string{}, done: -1}
	ready := make(chan struct{})
	var readyAt, doneAt time.Time
	var wg sync.WaitGroup
	wg.Go(func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 1 && f[0] == "ready":
				readyAt = time.Now()
				close(ready)
			case len(f) == 3 && f[0] == "begin":
				n, _ := strconv.Atoi(f[1])
				r.begun[n] = f[2]
			case len(f) == 2 && f[0] == "done":
				r.done, _ = strconv.Atoi(f[1])
				r.dones++
				doneAt = time.Now()
			}
		}
	})
	if stage == "" && delay >= 0 {
		select {
		case <-ready:
			time.Sleep(delay)
		case <-time.After(20 * time.Second):
		}
		cmd.Process.Signal(syscall.SIGKILL)
	}
	wg.Wait()
	err = cmd.Wait()
	if !doneAt.IsZero() {
		r.busy = doneAt.Sub(readyAt)
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
		r.killed = true
	case err != nil:
		t.Fatalf("the writer failed: %v\n%s", err, stderr.Bytes())
	}
	return r
}

// crashTarget is a container under TestCrash and the state it is known
// to be at.
type crashTarget struct {
	kind, path string
	state      int
	hash       string
}

// kill runs a writer, has it killed, and checks that the container opens,
// with the ordinary read path, at exactly one of the states it could be
// at: the last one the writer committed (or the one it held before), or
// the one it was committing when it was killed.
func (c *crashTarget) kill(t *testing.T, stage string, nth, states int, delay time.Duration) run {
	t.Helper()
	r := startWriter(t, c.kind, c.path, stage, nth, states, delay)
	want := map[string]int{}
	last, lastHash := c.state, c.hash
	if r.done >= 0 {
		last, lastHash = r.done, r.begun[r.done]
	}
	want[lastHash] = last
	if h, ok := r.begun[last+1]; ok {
		want[h] = last + 1
	}
	st, err := readState(c.path)
	if err != nil {
		t.Fatalf("killed at %q (after %d, committing %d): the file does not open: %v", stage, last, last+1, err)
	}
	h := docHash(st.doc)
	n, ok := want[h]
	if !ok {
		got, _ := stateOf(st.doc)
		t.Fatalf("killed at %q: the file holds a document (state %d, %s) that is none of %v", stage, got, h, want)
	}
	if i, err := checkState(st); err != nil || i != n {
		t.Fatalf("killed at %q: state %d (want %d): %v", stage, i, n, err)
	}
	c.state, c.hash = n, h
	return r
}

// compact compacts the container in place, which must keep its state.
func (c *crashTarget) compact(t *testing.T) {
	t.Helper()
	if err := Compact(ctx, c.path, c.path); err != nil {
		t.Fatal(err)
	}
	st := mustState(t, c.path)
	if i, err := checkState(st); err != nil || i != c.state || docHash(st.doc) != c.hash {
		t.Fatalf("compaction changed state %d to %d (%v)", c.state, i, err)
	}
}

// TestCrash kills a writer at every stage of a commit, and at random
// points, and checks each time that the file opens at exactly one of its
// committed states and that the next writer goes on from there.
func TestCrash(t *testing.T) {
	kills := 200
	if testing.Short() {
		kills = 40
	}
	for _, kind := range []string{"tar", "dir"} {
		t.Run(kind, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.lindi."+map[string]string{"tar": "tar", "dir": "d"}[kind])
			s, err := crashContainer(kind).Create(ctx, path, false)
			if err == nil {
				err = s.Commit(ctx, prettyEmpty())
			}
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			c := &crashTarget{kind: kind, path: path, hash: docHash(prettyEmpty())}
			start, staged := time.Now(), 0
			for _, stage := range []string{"blobs", "doc", "index", "synced", "entry", "done"} {
				if kind == "dir" && stage == "index" {
					continue
				}
				for nth := 1; nth <= 3; nth++ {
					staged++
					if r := c.kill(t, stage, nth, 5, 0); !r.killed {
						t.Fatalf("the writer never reached stage %q", stage)
					}
				}
			}
			// The random kills land within the first few commits of each
			// writer, timed by one that runs to its end (a commit of a
			// directory, which syncs every blob file and three directories,
			// takes several times as long as a tar's).
			r := c.kill(t, "", 0, 10, -1)
			if r.killed || r.dones != 10 {
				t.Fatalf("the timing writer committed %d states of 10", r.dones)
			}
			maxDelay := max(time.Millisecond, r.busy*4/10)
			rng := rand.New(rand.NewPCG(1, 2))
			n := kills
			if kind == "dir" {
				n = kills / 5
			}
			dones := 0
			for k := range n {
				r := c.kill(t, "", 0, 1000, time.Duration(rng.Int64N(int64(maxDelay))))
				dones += r.dones
				if k%25 == 24 {
					// Every superseded index and blob stays in a tar, and
					// in its index, until it is compacted.
					c.compact(t)
				}
			}
			t.Logf("%d kills in %v (random ones within %v of the writer being ready); %d commits completed between them", n+staged, time.Since(start), maxDelay, dones)
			if dones == 0 {
				t.Errorf("no writer ever completed a commit before it was killed")
			}
			// A last writer, in this process: open, write, commit, read back.
			s, doc, err := crashContainer(kind).OpenSink(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if i, _ := stateOf(doc); i != c.state {
				t.Fatalf("OpenSink gives state %d, the file was at %d", i, c.state)
			}
			i := c.state + 1
			refs := make([]json.RawMessage, crashChunks)
			for j := range refs {
				if refs[j], err = s.Blob(ctx, chunkKey(j), chunkData(i, j)); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Commit(ctx, crashDoc(i, refs)); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got, err := checkState(mustState(t, path)); err != nil || got != i {
				t.Fatalf("after the last commit: state %d, %v; want %d", got, err, i)
			}
			if kind == "tar" {
				checkTail(t, path)
			}
		})
	}
}
