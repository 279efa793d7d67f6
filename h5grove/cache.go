package h5grove

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/lindigo/lindi/h5"
)

// maxOpen bounds how many files a Server keeps open between requests.
const maxOpen = 16

// openFiles keeps the files requests opened, so that the next request for
// the same file reads through the same caches instead of opening it again.
// A local file is opened again when its size or modification time change.
// Entries are counted: one evicted while a request uses it is closed by the
// last user.
type openFiles struct {
	opts []h5.Option

	mu    sync.Mutex
	files map[string]*openFile
}

type openFile struct {
	f       *h5.File
	stamp   string
	refs    int
	evicted bool
	used    time.Time
}

// acquire returns the file at loc, opened or shared, and the function that
// releases it.
func (c *openFiles) acquire(ctx context.Context, loc string) (*h5.File, func(), error) {
	stamp := stampOf(loc)
	c.mu.Lock()
	if e, ok := c.files[loc]; ok && e.stamp == stamp {
		e.refs++
		e.used = time.Now()
		c.mu.Unlock()
		return e.f, func() { c.release(e) }, nil
	}
	c.mu.Unlock()

	f, err := h5.Open(ctx, loc, c.opts...)
	if err != nil {
		return nil, nil, err
	}
	e := &openFile{f: f, stamp: stamp, refs: 1, used: time.Now()}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		c.files = map[string]*openFile{}
	}
	if old, ok := c.files[loc]; ok {
		c.evict(loc, old)
	}
	if len(c.files) >= maxOpen {
		c.evictOldest()
	}
	c.files[loc] = e
	return f, func() { c.release(e) }, nil
}

func (c *openFiles) release(e *openFile) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.refs--
	if e.refs == 0 && e.evicted {
		e.f.Close()
	}
}

// evict drops e from the map; the caller holds mu.
func (c *openFiles) evict(loc string, e *openFile) {
	delete(c.files, loc)
	e.evicted = true
	if e.refs == 0 {
		e.f.Close()
	}
}

func (c *openFiles) evictOldest() {
	var oldest string
	var at time.Time
	for loc, e := range c.files {
		if oldest == "" || e.used.Before(at) {
			oldest, at = loc, e.used
		}
	}
	if oldest != "" {
		c.evict(oldest, c.files[oldest])
	}
}

// close closes every file no request uses, and marks the others to be
// closed by their last user.
func (c *openFiles) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for loc, e := range c.files {
		c.evict(loc, e)
	}
}

// stampOf identifies the version of a local file: its size and modification
// time. A URL has none ("").
func stampOf(loc string) string {
	fi, err := os.Stat(loc)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
}
