package source

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lindigo/lindi/internal/atomicfile"
)

// DefaultDiskCacheBytes is the capacity of a DiskCache made by NewDiskCache
// with maxBytes 0: 4 GiB.
const DefaultDiskCacheBytes = 4 << 30

// diskMagic starts every cached range file; the format's version is in it.
const diskMagic = "lindi-range-v1\n"

// DiskCache keeps byte ranges fetched from remote sources in a directory, so
// that a later process reading the same ranges makes no request but one per
// object to check that it has not changed. Entries are keyed by the object's
// name and its validator (ETag when the server gives one, else its size),
// offset and length: a changed object is never served stale.
//
// Several processes may share the directory: entries are written to a
// temporary file and renamed into place, so a reader sees a whole entry or
// none, and reads take no lock. Each entry carries its length and CRC-32,
// checked on every read. When the directory holds more than its capacity,
// the least recently used entries (by modification time, renewed on each
// hit) are removed. A DiskCache is safe for concurrent use.
type DiskCache struct {
	dir   string
	max   int64
	used  atomic.Int64 // estimate: the last scan plus what this process wrote since
	scan  sync.Mutex   // one eviction scan at a time in this process
	known atomic.Bool  // used holds a scan's result
}

// NewDiskCache returns a cache in dir (created if missing) holding at most
// maxBytes bytes of entries (DefaultDiskCacheBytes when 0).
func NewDiskCache(dir string, maxBytes int64) (*DiskCache, error) {
	if dir == "" {
		return nil, fmt.Errorf("source: NewDiskCache: no directory")
	}
	if maxBytes < 0 {
		return nil, fmt.Errorf("source: NewDiskCache(%s, %d): capacity must not be negative", dir, maxBytes)
	}
	if maxBytes == 0 {
		maxBytes = DefaultDiskCacheBytes
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("source: disk cache: %w", err)
	}
	return &DiskCache{dir: dir, max: maxBytes}, nil
}

// Dir reports the cache's directory.
func (d *DiskCache) Dir() string { return d.dir }

// path names the entry of a range of the object with the given name and
// validator.
func (d *DiskCache) path(name, validator string, off, n int64) string {
	h := sha256.Sum256([]byte(name + "\x00" + validator + "\x00" + strconv.FormatInt(off, 10) + "+" + strconv.FormatInt(n, 10)))
	s := hex.EncodeToString(h[:])
	return filepath.Join(d.dir, s[:2], s[2:]+".range")
}

// get reads an entry into p; false when absent, torn or corrupt.
func (d *DiskCache) get(path string, p []byte) bool {
	b, err := os.ReadFile(path)
	if err != nil || len(b) != len(diskMagic)+8+len(p)+4 || string(b[:len(diskMagic)]) != diskMagic {
		return false
	}
	body := b[len(diskMagic)+8 : len(b)-4]
	if binary.LittleEndian.Uint64(b[len(diskMagic):]) != uint64(len(p)) ||
		crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return false
	}
	copy(p, body)
	now := time.Now()
	os.Chtimes(path, now, now) // recently used; a failure only ages the entry
	return true
}

// put writes an entry atomically; failures are not errors: the cache is
// an optimisation.
func (d *DiskCache) put(path string, data []byte) {
	size := int64(len(diskMagic) + 8 + len(data) + 4)
	if size > d.max/8 {
		return // one huge read must not flush everything
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	buf := make([]byte, 0, size)
	buf = append(buf, diskMagic...)
	buf = binary.LittleEndian.AppendUint64(buf, uint64(len(data)))
	buf = append(buf, data...)
	buf = binary.LittleEndian.AppendUint32(buf, crc32.ChecksumIEEE(data))
	// Not atomicfile.Replace: its scan for stale temporaries would list the
	// cache's directory at every put; evict removes them.
	tmp, err := atomicfile.WriteTemp(path, atomicfile.Perm, atomicfile.Data(buf), nil)
	if err != nil {
		return
	}
	err = os.Rename(tmp, path)
	atomicfile.Untrack(tmp)
	if err != nil {
		os.Remove(tmp)
		return
	}
	if d.used.Add(size) > d.max || !d.known.Load() {
		d.evict()
	}
}

// staleTemp is the age after which a temporary file is taken for the
// leftover of a process that died while writing.
const staleTemp = time.Hour

// evict measures the directory and, when it holds more than the capacity,
// removes the least recently used entries down to 90% of it.
func (d *DiskCache) evict() {
	if !d.scan.TryLock() {
		return // another goroutine of this process is at it
	}
	defer d.scan.Unlock()
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	filepath.WalkDir(d.dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return nil
		}
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") { // atomicfile.TempName's
			if time.Since(info.ModTime()) > staleTemp {
				os.Remove(path)
			}
			return nil
		}
		if strings.HasSuffix(e.Name(), ".range") {
			files = append(files, file{path, info.Size(), info.ModTime()})
			total += info.Size()
		}
		return nil
	})
	if total > d.max {
		slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
		for _, f := range files {
			if total <= d.max/10*9 {
				break
			}
			if err := os.Remove(f.path); err == nil || errors.Is(err, fs.ErrNotExist) {
				total -= f.size // another process may have removed it first
			}
		}
	}
	d.used.Store(total)
	d.known.Store(true)
}

// Used reports the bytes the directory's entries take, as last measured
// (measuring now if never).
func (d *DiskCache) Used() int64 {
	if !d.known.Load() {
		d.evict()
	}
	return d.used.Load()
}

// validated is implemented by sources that know an entity tag (HTTP).
type validated interface{ ETag() string }

// DiskCached is a Source that serves ranges from a DiskCache, reading
// through to its source on a miss.
type DiskCached struct {
	src   Source
	cache *DiskCache
	stats Counters

	mu        sync.Mutex
	validator string // "" until learnt
}

// NewDiskCached returns a Source reading src through cache.
func NewDiskCached(src Source, cache *DiskCache) *DiskCached {
	return &DiskCached{src: src, cache: cache}
}

// Name reports the name of the underlying source.
func (c *DiskCached) Name() string { return c.src.Name() }

// Size reports the size of the underlying source.
func (c *DiskCached) Size(ctx context.Context) (int64, error) { return c.src.Size(ctx) }

// Unwrap returns the underlying source.
func (c *DiskCached) Unwrap() Source { return c.src }

// Stats reports the statistics of the underlying source plus the disk
// cache's hits and misses.
func (c *DiskCached) Stats() Stats {
	s := c.stats.Snapshot()
	if r, ok := c.src.(Reporter); ok {
		s = s.Add(r.Stats())
	}
	return s
}

// Close closes the underlying source if it is an io.Closer.
func (c *DiskCached) Close() error {
	if cl, ok := c.src.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// validate learns what identifies this version of the object: its ETag, or
// else its size (one small request the first time, when nothing has told
// the source yet). A failure is not remembered: the next read tries again.
func (c *DiskCached) validate(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.validator != "" {
		return c.validator, nil
	}
	size, err := c.src.Size(ctx)
	if err != nil {
		return "", err
	}
	c.validator = "size:" + strconv.FormatInt(size, 10)
	if v, ok := c.src.(validated); ok && v.ETag() != "" {
		c.validator = "etag:" + v.ETag()
	}
	return c.validator, nil
}

// ReadAt serves p from the disk cache or reads it through and stores it.
// Short reads and errors are not cached.
func (c *DiskCached) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if len(p) == 0 || off < 0 {
		return c.src.ReadAt(ctx, p, off)
	}
	v, err := c.validate(ctx)
	if err != nil {
		return c.src.ReadAt(ctx, p, off) // no validator: no caching, the read says what is wrong
	}
	path := c.cache.path(c.src.Name(), v, off, int64(len(p)))
	if c.cache.get(path, p) {
		c.stats.hits.Add(1)
		return len(p), nil
	}
	c.stats.misses.Add(1)
	n, err := c.src.ReadAt(ctx, p, off)
	if err == nil {
		c.cache.put(path, p[:n])
	}
	return n, err
}

func (c *DiskCached) knownSize() (int64, bool) { return knownSize(c.src) }

// ReadTail reads the last len(p) bytes of the source (see TailReader).
// When the source knows its size it reads at size-len(p) through ReadAt,
// served from the disk when held; otherwise it asks the source's ReadTail
// (one request over HTTP) and stores the answer as the range it turned out
// to be, under the validator that answer told (no request more).
func (c *DiskCached) ReadTail(ctx context.Context, p []byte) (int, int64, error) {
	size, tr, err := tailOf(ctx, c.src)
	switch {
	case err != nil:
		return 0, -1, err
	case tr == nil:
		return readTailAt(ctx, c, p, size)
	case len(p) == 0:
		return tr.ReadTail(ctx, p)
	}
	c.stats.misses.Add(1)
	n, size, err := tr.ReadTail(ctx, p)
	if err != nil {
		return n, size, err
	}
	if v, err := c.validate(ctx); err == nil {
		c.cache.put(c.cache.path(c.src.Name(), v, size-int64(n), int64(n)), p[:n])
	}
	return n, size, nil
}
