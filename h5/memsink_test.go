package h5

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
)

// memContainer is a container in memory for the write API's tests: names
// ending in ".mem.lindi" (claimed by no real container).
type memContainer struct {
	mu    sync.Mutex
	files map[string]*memFile
}

type memFile struct {
	failAt  int // Blob fails from its failAt-th call on (0: never)
	doc     []byte
	commits int
	blobs   map[string][]byte
	locked  bool
}

var mem = &memContainer{files: map[string]*memFile{}}

func init() { AddContainer(mem) }

func (*memContainer) Name() string            { return "memory" }
func (*memContainer) Claims(name string) bool { return strings.HasSuffix(name, ".mem.lindi") }

func (c *memContainer) Create(_ context.Context, name string, replace bool) (driver.Sink, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.files[name]; ok && !replace {
		return nil, fs.ErrExist
	}
	f := &memFile{doc: []byte(driver.EmptyDocument), blobs: map[string][]byte{}, locked: true}
	c.files[name] = f
	return &memSink{c: c, name: name, f: f, pending: map[string][]byte{}}, nil
}

func (c *memContainer) OpenSink(_ context.Context, name string) (driver.Sink, []byte, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.files[name]
	if !ok {
		return nil, nil, fs.ErrNotExist
	}
	if f.locked {
		return nil, nil, fmt.Errorf("%s is being written by another writer", name)
	}
	f.locked = true
	return &memSink{c: c, name: name, f: f, pending: map[string][]byte{}}, f.doc, nil
}

type memSink struct {
	c       *memContainer
	name    string
	f       *memFile
	mu      sync.Mutex
	pending map[string][]byte
	blobs   int
}

func (s *memSink) Member(_ context.Context, name string) (store.Value, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.pending[name]
	if !ok {
		s.c.mu.Lock()
		b, ok = s.f.blobs[name]
		s.c.mu.Unlock()
	}
	if !ok {
		return store.Value{}, fmt.Errorf("%w: %s", store.ErrNotFound, name)
	}
	// Members are files: the store locates bytes, it does not hold them.
	path := filepath.Join(memDir, fmt.Sprintf("%x", sha256.Sum256(b)))
	if _, err := os.Stat(path); err != nil {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			return store.Value{}, err
		}
	}
	return store.Value{URL: path, Len: int64(len(b))}, nil
}

// memDir holds the members of the memory files, by content.
var memDir = func() string {
	d, err := os.MkdirTemp("", "lindi-memsink")
	if err != nil {
		panic(err)
	}
	return d
}()

func (s *memSink) Blob(_ context.Context, key string, data []byte) (json.RawMessage, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.blobs++; s.f.failAt > 0 && s.blobs >= s.f.failAt {
		return nil, fmt.Errorf("no space left on device (a test)")
	}
	name := "blobs/" + key
	for v := 2; ; v++ {
		s.c.mu.Lock()
		_, committed := s.f.blobs[name]
		s.c.mu.Unlock()
		if _, p := s.pending[name]; !p && !committed {
			break
		}
		name = fmt.Sprintf("blobs/%s.v%d", key, v)
	}
	s.pending[name] = append([]byte(nil), data...)
	return json.Marshal([]any{"./" + name, 0, len(data)})
}

func (s *memSink) Commit(_ context.Context, doc []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	for k, v := range s.pending {
		s.f.blobs[k] = v
	}
	s.pending = map[string][]byte{}
	s.f.doc = append([]byte(nil), doc...)
	s.f.commits++
	return nil
}

func (s *memSink) Close() error {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	s.f.locked = false
	return nil
}

// openMem opens the committed state of a memory file for reading, as a
// reader opening it would.
func openMem(ctx context.Context, name string) (*File, error) {
	mem.mu.Lock()
	f := mem.files[name]
	mem.mu.Unlock()
	if f == nil {
		return nil, fs.ErrNotExist
	}
	// Resolve the members: a document whose "./blobs" refs become inline.
	st, err := store.ParseContainer(name, f.doc, &memSink{c: mem, name: name, f: f, pending: map[string][]byte{}})
	if err != nil {
		return nil, err
	}
	refs := map[string]any{}
	for _, k := range st.Keys("") {
		v, err := st.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		raw, _ := st.Ref(k)
		if strings.HasPrefix(string(raw), "{") {
			refs[k] = raw // as written: 30000.0 stays a float
			continue
		}
		refs[k] = "base64:" + base64.StdEncoding.EncodeToString(v.Data)
	}
	return OpenRefs(ctx, refs, "")
}
