package lindi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/lindigo/lindi/internal/atomicfile"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
)

// TarContainer writes .lindi.tar files.
type TarContainer struct{}

// Claims takes the names Python lindi writes as a tar: any ending in ".tar"
// (so ".lindi.tar" and ".nwb.lindi.tar").
// Name is the format's name, as the reading driver gives it.
func (TarContainer) Name() string { return "LINDI tar" }

// Compact compacts the tar in place (Compact).
func (TarContainer) Compact(ctx context.Context, name string) error { return Compact(ctx, name, name) }

func (TarContainer) Claims(name string) bool { return strings.HasSuffix(name, ".tar") }

// Create writes a new tar laid out as Python lindi's LindiTarFile.create
// leaves it, byte for byte: the entry at 512, the index at 2048 padded to
// 8 KiB, lindi.json (the empty document) at 10752 padded to 8 KiB, and 1024
// zero bytes. It is written to a temporary file beside name (driver.Stage)
// that becomes name at the first commit (driver.Publish), so that a writer
// that stops before it leaves name as it was.
func (TarContainer) Create(ctx context.Context, name string, replace bool) (driver.Sink, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	tmp, err := driver.Stage(abs, replace)
	if err == nil {
		err = prepareStage(abs, replace)
	}
	if err != nil {
		return nil, fmt.Errorf("lindi: %w", err)
	}
	doc := prettyEmpty()
	recs := []record{
		{name: entryName, o: 0, d: entryOff, s: entrySize},
		{name: indexName, o: entryOff + entrySize, d: entryOff + entrySize + block, s: initialSize},
	}
	recs = append(recs, record{name: jsonName, o: recs[1].end(), d: recs[1].end() + block, s: initialSize})
	var buf bytes.Buffer
	for _, r := range recs {
		h, err := header(r.name, r.s)
		if err != nil {
			return nil, err
		}
		buf.Write(h)
		switch r.name {
		case entryName:
			buf.Write(entryJSON(recs[1]))
		case indexName:
			buf.Write(padTo(indexJSON(recs), r.s))
		case jsonName:
			buf.Write(padTo(doc, r.s))
		}
	}
	buf.Write(make([]byte, tailSize))
	f, err := createStaged(tmp, buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("lindi: create %s: %w", abs, bare(err))
	}
	s := newTarSink(tmp, f, recs, doc)
	s.stage = staging{name: abs, replace: replace}
	return s, nil
}

// prettyEmpty is driver.EmptyDocument as Python lindi writes it into a tar
// or a directory: json.dumps(indent=2, sort_keys=True).
func prettyEmpty() []byte {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(driver.EmptyDocument), "", "  "); err != nil {
		panic(err) // a constant that is valid JSON
	}
	return b.Bytes()
}

// createStaged makes the new file tmp holding data, locked and synced.
func createStaged(tmp string, data []byte) (*os.File, error) {
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, atomicfile.Perm)
	if err != nil {
		return nil, err
	}
	_, err = lock(f, tmp)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return f, nil
}

// OpenSink opens the tar at name, ours or Python lindi's, for amending. A
// tail left by a writer that was killed (blobs appended after the last
// committed member, or a missing zero tail) is cut off and the 1024 zero
// bytes put back, as Python lindi needs them to append.
func (TarContainer) OpenSink(ctx context.Context, name string) (driver.Sink, []byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, nil, err
	}
	f, err := openLocked(abs, os.O_RDWR)
	if err != nil {
		return nil, nil, fmt.Errorf("lindi: %w", err)
	}
	recs, doc, err := readCommitted(f)
	if err == nil {
		err = repairTail(f, recs)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, nil, fmt.Errorf("lindi: %s: %w", abs, err)
	}
	return newTarSink(abs, f, recs, doc), doc, nil
}

// readCommitted reads the committed state of the tar f: the records of its
// index, superseded ones already dropped, and its lindi.json without its
// padding.
func readCommitted(f *os.File) ([]record, []byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	read := func(what string, off, n int64) ([]byte, error) {
		if off < 0 || n < 0 || off > size || n > size-off {
			return nil, fmt.Errorf("%w: %s: %d bytes at %d are %w of %d bytes", driver.ErrFormat, what, n, off, errBounds, size)
		}
		if n > driver.DefaultMaxMetadataBytes {
			return nil, fmt.Errorf("%w: %s: %d bytes is more than the metadata limit of %d", driver.ErrFormat, what, n, driver.DefaultMaxMetadataBytes)
		}
		b := make([]byte, n)
		if _, err := f.ReadAt(b, off); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		return b, nil
	}
	head, err := read("tar header", 0, entryOff+entrySize)
	if err != nil {
		return nil, nil, err
	}
	if !isTar(head) {
		return nil, nil, fmt.Errorf("%w: not a tar (no \"ustar\" at byte 257)", driver.ErrFormat)
	}
	index, err := parseEntry(head[entryOff:])
	if err != nil {
		return nil, nil, err
	}
	b, err := read(indexName, index.off, index.size)
	if err != nil {
		return nil, nil, err
	}
	recs, err := parseRecords(b, size)
	if err != nil {
		return nil, nil, err
	}
	var doc *record
	self := false
	for i, r := range recs {
		switch r.name {
		case indexName:
			self = r.d == index.off && r.s == index.size
		case jsonName:
			doc = &recs[i]
		}
	}
	if !self {
		return nil, nil, fmt.Errorf("%w: %s does not list itself where %s says it is (%d bytes at %d)",
			driver.ErrFormat, indexName, entryName, index.size, index.off)
	}
	if doc == nil {
		return nil, nil, fmt.Errorf("%w: no %s in %s", driver.ErrFormat, jsonName, indexName)
	}
	if recs[0] != (record{name: entryName, o: 0, d: entryOff, s: entrySize}) {
		return nil, nil, fmt.Errorf("%w: %s does not list %s first, at 0 (data at %d, %d bytes), as Python lindi requires",
			driver.ErrFormat, indexName, entryName, entryOff, entrySize)
	}
	data, err := read(jsonName, doc.d, doc.s)
	if err != nil {
		return nil, nil, err
	}
	return recs, trimPadding(data), nil
}

// committedEnd is where the zero tail of a tar with the records recs
// starts: after the last block of any member.
func committedEnd(recs []record) int64 {
	var end int64
	for _, r := range recs {
		end = max(end, r.end())
	}
	return end
}

// repairTail makes the tar f end exactly with the 1024 zero bytes after its
// last committed member, cutting off whatever a killed writer appended.
func repairTail(f *os.File, recs []record) error {
	end := committedEnd(recs)
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() == end+tailSize {
		tail := make([]byte, tailSize)
		if _, err := f.ReadAt(tail, end); err != nil {
			return err
		}
		if allZero(tail) {
			return nil
		}
	}
	if err := f.Truncate(end); err != nil {
		return fmt.Errorf("repair the tail: %w", err)
	}
	if _, err := f.WriteAt(make([]byte, tailSize), end); err != nil {
		return fmt.Errorf("repair the tail: %w", err)
	}
	return f.Sync()
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// tarSink is an open .lindi.tar. Blobs are appended at offsets reserved
// under mu and written outside it, so that encoders write concurrently;
// Commit waits for the writes in flight and holds off new reservations
// while it appends and switches the entry, but never blocks Member.
type tarSink struct {
	path  string // absolute
	f     *os.File
	stage staging // of a tar from Create, until its first commit
	// writeAt and sync write the file; tests replace them to fail as a
	// full disk does.
	writeAt func(p []byte, off int64) (int, error)
	sync    func() error

	mu         sync.Mutex
	cond       sync.Cond
	closed     bool
	broken     error // a failed write: the sink refuses to go on
	committing bool
	inflight   int   // blob writes reserved and not finished
	unsynced   int64 // blob bytes written since the last writeback began
	flushing   bool  // a writeback runs (writeBack)

	recs    []record       // the committed index, in order
	live    map[string]int // a committed name → its record
	doc     []byte         // the committed lindi.json, unpadded
	end     int64          // where the next member's header goes
	pending []*pendingBlob // blobs reserved since the last commit, by offset
	names   map[string]*pendingBlob
	nextV   map[string]int // a blob name → the first version freeName has not seen taken
}

// pendingBlob is a blob reserved since the last commit; done once written.
type pendingBlob struct {
	rec  record
	done bool
}

func newTarSink(path string, f *os.File, recs []record, doc []byte) *tarSink {
	s := &tarSink{path: path, f: f, writeAt: f.WriteAt, sync: f.Sync, nextV: map[string]int{}}
	s.cond.L = &s.mu
	s.setCommitted(recs, doc)
	return s
}

// setCommitted makes recs and doc the committed state.
func (s *tarSink) setCommitted(recs []record, doc []byte) {
	s.recs, s.doc = recs, doc
	s.live = make(map[string]int, len(recs))
	for i, r := range recs {
		s.live[r.name] = i
	}
	s.end = committedEnd(recs) // the committed zero tail: the next blob overwrites it
	s.pending, s.names = nil, map[string]*pendingBlob{}
}

// usable reports why the sink cannot be written, if it cannot. Called with
// mu held.
func (s *tarSink) usable() error {
	switch {
	case s.closed:
		return fmt.Errorf("lindi: %s: %w", s.path, fs.ErrClosed)
	case s.broken != nil:
		return fmt.Errorf("lindi: %s: an earlier write failed (%w); the file is at its last committed state: close it and open it again", s.path, s.broken)
	}
	return nil
}

// Member locates a committed member or a blob written since the last
// commit.
func (s *tarSink) Member(_ context.Context, name string) (store.Value, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.names[name]; ok && b.done {
		return store.Value{URL: s.path, Off: b.rec.d, Len: b.rec.s}, nil
	}
	if i, ok := s.live[name]; ok && !strings.HasPrefix(name, trashDir) {
		return store.Value{URL: s.path, Off: s.recs[i].d, Len: s.recs[i].s}, nil
	}
	return store.Value{}, fmt.Errorf("%s: member %q: %w", s.path, name, store.ErrNotFound)
}

// Blob appends data as the member blobs/<key>, or blobs/<key>.v2, .v3, …
// when that name is taken, at an offset reserved under the lock and written
// outside it.
func (s *tarSink) Blob(ctx context.Context, key string, data []byte) (json.RawMessage, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	s.mu.Lock()
	for s.committing {
		s.cond.Wait()
	}
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return nil, err
	}
	name, path := s.freeName("blobs/"+key), s.path
	h, err := header(name, int64(len(data)))
	if err != nil {
		s.mu.Unlock()
		return nil, fmt.Errorf("lindi: key %q: %w", key, err)
	}
	b := &pendingBlob{rec: record{name: name, o: s.end, d: s.end + block, s: int64(len(data))}}
	s.end = b.rec.end()
	s.pending = append(s.pending, b)
	s.names[name] = b
	s.inflight++
	s.mu.Unlock()

	err = s.writeMember(h, data, b.rec)
	s.mu.Lock()
	s.inflight--
	if err != nil && s.broken == nil {
		s.broken = err
	}
	b.done = err == nil
	if err == nil {
		s.writeBack(int64(len(data)))
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("lindi: %s: write %s: %w", path, name, err)
	}
	return jsonRef(name, len(data)), nil
}

// writeBackBytes is how many blob bytes are written between writebacks.
const writeBackBytes = 64 << 20

// writeBack counts n more blob bytes written and, past writeBackBytes
// since the last, syncs the file in the background, so that the disk
// writes the blobs while the next chunks are encoded rather than all at
// the commit's fsync, which then has little left to do. Its error is the
// commit's to find. Called with mu held.
func (s *tarSink) writeBack(n int64) {
	s.unsynced += n
	if s.unsynced < writeBackBytes || s.flushing {
		return
	}
	s.unsynced, s.flushing = 0, true
	go func() {
		s.sync() //nolint:errcheck // the commit's own sync reports
		s.mu.Lock()
		s.flushing = false
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
}

// freeName returns name, or its first version name.vN not taken by a
// committed or pending member. Called with mu held.
func (s *tarSink) freeName(name string) string {
	taken := func(n string) bool {
		_, c := s.live[n]
		_, p := s.names[n]
		return c || p
	}
	return versionName(name, s.nextV, taken)
}

// versionName returns name when it is not taken, else its first version
// name.vN that is not. Names are only ever added while a sink is open, so
// the search resumes where the last one for name stopped (next).
func versionName(name string, next map[string]int, taken func(string) bool) string {
	if !taken(name) {
		return name
	}
	for v := max(2, next[name]); ; v++ {
		if n := name + ".v" + strconv.Itoa(v); !taken(n) {
			next[name] = v + 1
			return n
		}
	}
}

// writeMember writes a member's header, data and the NULs that pad it to a
// block.
func (s *tarSink) writeMember(h, data []byte, r record) error {
	if _, err := s.writeAt(h, r.o); err != nil {
		return err
	}
	if _, err := s.writeAt(data, r.d); err != nil {
		return err
	}
	if pad := r.end() - r.d - r.s; pad > 0 {
		if _, err := s.writeAt(make([]byte, pad), r.d+r.s); err != nil {
			return err
		}
	}
	return nil
}

// hook, when set by a test, is called at each stage of a commit.
var hook func(stage string)

func at(stage string) {
	if hook != nil {
		hook(stage)
	}
}

// Commit makes doc the tar's document in the order that survives a crash
// at any point: the blobs are already appended; a new lindi.json (unless doc
// is unchanged) and a new index are appended after them, followed by the
// zero tail, and synced; only then is the 1024-byte entry at 512 switched
// to the new index, and synced. Until the entry is switched the file opens
// at its previous state; lindi.json and the index are never rewritten in
// place. The entry's meaningful bytes (about 100, the rest spaces that do
// not change) lie within its first 512-byte sector.
func (s *tarSink) Commit(ctx context.Context, doc []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	doc = trimPadding(doc)
	s.mu.Lock()
	for s.committing || s.inflight > 0 {
		s.cond.Wait()
	}
	if err := s.usable(); err != nil {
		s.mu.Unlock()
		return err
	}
	s.committing = true
	pending, end := s.pending, s.end
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.committing = false
		s.cond.Broadcast()
		s.mu.Unlock()
	}()

	if _, err := checkRefs(ctx, s.path, doc, s); err != nil {
		return err
	}
	if len(pending) == 0 && bytes.Equal(doc, s.doc) {
		return s.stage.publish(&s.mu, &s.path)
	}
	at("blobs")
	recs, err := s.appendMeta(doc, pending, end)
	if err != nil {
		return s.fail(err)
	}
	s.mu.Lock()
	s.setCommitted(recs, doc)
	s.mu.Unlock()
	return s.stage.publish(&s.mu, &s.path)
}

// fail records a failed write, after which the sink refuses to go on.
func (s *tarSink) fail(err error) error {
	s.mu.Lock()
	if s.broken == nil {
		s.broken = err
	}
	s.mu.Unlock()
	return fmt.Errorf("lindi: %s: commit: %w; the file is at its last committed state", s.path, err)
}

// appendMeta appends lindi.json (when doc changed) and the index at end,
// after the pending blobs, and switches the entry: the commit's writes.
func (s *tarSink) appendMeta(doc []byte, pending []*pendingBlob, end int64) ([]record, error) {
	var recs []record
	changed := !bytes.Equal(doc, s.doc)
	for _, r := range s.recs {
		if r.name != indexName && !(changed && r.name == jsonName) {
			recs = append(recs, r)
		}
	}
	for _, b := range pending {
		recs = append(recs, b.rec)
	}
	if changed {
		r := record{name: jsonName, o: end, d: end + block, s: grownSize(len(doc), initialSize)}
		if err := s.writeMeta(r, doc, false); err != nil {
			return nil, err
		}
		recs = append(recs, r)
		end = r.end()
		at("doc")
	}
	// The index lists itself: its size, padded for growth, is found by
	// trying sizes until the padding of the JSON naming one is that size.
	r := record{name: indexName, o: end, d: end + block, s: initialSize}
	var index []byte
	for {
		index = indexJSON(append(recs, r))
		if size := grownSize(len(index), initialSize); size != r.s {
			r.s = size
			continue
		}
		break
	}
	if err := s.writeMeta(r, index, true); err != nil {
		return nil, err
	}
	recs = append(recs, r)
	at("index")
	if err := s.sync(); err != nil {
		return nil, err
	}
	at("synced")
	if _, err := s.writeAt(entryJSON(r), entryOff); err != nil {
		return nil, err
	}
	at("entry")
	if err := s.sync(); err != nil {
		return nil, err
	}
	at("done")
	return recs, nil
}

// writeMeta writes the member r holding data padded with spaces to r.s
// bytes, in one write followed, for the last member of a commit, by the
// zero tail.
func (s *tarSink) writeMeta(r record, data []byte, last bool) error {
	h, err := header(r.name, r.s)
	if err != nil {
		return err
	}
	n := r.end() - r.o
	if last {
		n += tailSize
	}
	buf := make([]byte, n)
	copy(buf, h)
	copy(buf[block:], data)
	for i := block + len(data); i < block+int(r.s); i++ {
		buf[i] = ' '
	}
	_, err = s.writeAt(buf, r.o)
	return err
}

// Close releases the tar and its lock. Blobs written since the last commit
// are cut off, and the zero tail put back, so that Python lindi can append
// to the file.
func (s *tarSink) Close() error {
	s.mu.Lock()
	for s.committing || s.inflight > 0 || s.flushing {
		s.cond.Wait()
	}
	if s.closed {
		s.mu.Unlock()
		return fmt.Errorf("lindi: %s: %w", s.path, fs.ErrClosed)
	}
	s.closed = true
	dirty := len(s.pending) > 0 || s.broken != nil
	s.mu.Unlock()
	var err error
	if dirty {
		// After a failed commit the entry on disk may name either state:
		// the tail is cut after the one it names.
		var recs []record
		if recs, _, err = readCommitted(s.f); err == nil {
			err = repairTail(s.f, recs)
		}
	}
	err = errors.Join(err, unlock(s.f), s.f.Close())
	err = errors.Join(err, s.stage.discard(s.path))
	if err != nil {
		return fmt.Errorf("lindi: %s: close: %w", s.path, err)
	}
	return nil
}
