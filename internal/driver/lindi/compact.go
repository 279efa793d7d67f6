package lindi

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lindigo/lindi/internal/atomicfile"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
)

// Compact writes to dst a copy of the container src, a .lindi.tar or a
// .lindi.d, that holds only its lindi.json and the members its refs name,
// under the same names (so no ref changes), and then renames it into
// place. dst may be src, which is then replaced; any other dst must not
// exist. It costs the live bytes, not the file's: the superseded
// lindi.json and index copies, blobs no ref names any more and the tails of
// killed writers are left behind. src is locked, as a writer locks it,
// while it is read. A .lindi.d compacted in place has the blob files no
// ref names removed.
func Compact(ctx context.Context, src, dst string) error {
	src, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	if dst, err = filepath.Abs(dst); err != nil {
		return err
	}
	st, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("lindi: compact: %w", err)
	}
	if src != dst {
		if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("lindi: compact %s: %s: %w", src, dst, fs.ErrExist)
		}
	}
	if st.IsDir() {
		err = compactDir(ctx, src, dst)
	} else {
		err = compactTar(ctx, src, dst)
	}
	if err != nil {
		return fmt.Errorf("lindi: compact %s: %w", src, err)
	}
	return nil
}

// liveNames are the members the document of the container at path names,
// checked to lie within what m holds.
func liveNames(ctx context.Context, path string, doc []byte, m store.Members) ([]string, error) {
	if _, gen, err := rangeKeys(doc); err != nil {
		return nil, err
	} else if gen {
		return nil, fmt.Errorf("%w: the document has kerchunk \"gen\" refs, which compaction does not follow", driver.ErrFormat)
	}
	names, err := checkRefs(ctx, path, doc, m)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out, nil
}

// recMembers locates the members of a tar by its records.
type recMembers struct {
	path string
	at   map[string]record
}

func (m recMembers) Member(_ context.Context, name string) (store.Value, error) {
	r, ok := m.at[name]
	if !ok || strings.HasPrefix(name, trashDir) {
		return store.Value{}, fmt.Errorf("%s: member %q: %w", m.path, name, store.ErrNotFound)
	}
	return store.Value{URL: m.path, Off: r.d, Len: r.s}, nil
}

func compactTar(ctx context.Context, src, dst string) error {
	f, err := openLocked(src, os.O_RDONLY)
	if err != nil {
		return err
	}
	defer func() {
		unlock(f)
		f.Close()
	}()
	recs, doc, err := readCommitted(f)
	if err != nil {
		return err
	}
	m := recMembers{path: src, at: map[string]record{}}
	for _, r := range recs {
		m.at[r.name] = r
	}
	names, err := liveNames(ctx, src, doc, m)
	if err != nil {
		return err
	}
	var blobs []record
	for _, n := range names {
		if n == entryName || n == indexName || n == jsonName {
			return fmt.Errorf("%w: a ref names %s, which compaction rewrites", driver.ErrFormat, n)
		}
		blobs = append(blobs, m.at[n])
	}
	slices.SortFunc(blobs, func(a, b record) int { return int(a.d - b.d) })
	recs, old, index := tarLayout(doc, blobs)
	tmp, w, err := atomicfile.CreateTemp(dst, atomicfile.Perm)
	if err != nil {
		return err
	}
	defer func() { os.Remove(tmp); atomicfile.Untrack(tmp) }()
	err = writeTar(ctx, w, f, old, recs, index, doc)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	return atomicfile.SyncDir(filepath.Dir(dst))
}

// tarLayout places the members of a compacted tar: the entry, the index,
// lindi.json and the blobs, in that order. It returns the new records (the
// entry first), the blobs' old records in the same order as theirs, and
// the index, unpadded.
func tarLayout(doc []byte, blobs []record) (recs []record, old []record, index []byte) {
	docSize := grownSize(len(doc), initialSize)
	idx := record{name: indexName, o: entryOff + entrySize, d: entryOff + entrySize + block, s: initialSize}
	for {
		recs = []record{{name: entryName, o: 0, d: entryOff, s: entrySize}, idx}
		pos := idx.end()
		recs = append(recs, record{name: jsonName, o: pos, d: pos + block, s: docSize})
		pos = recs[2].end()
		for _, b := range blobs {
			recs = append(recs, record{name: b.name, o: pos, d: pos + block, s: b.s})
			pos = recs[len(recs)-1].end()
		}
		index = indexJSON(recs)
		size := grownSize(len(index), initialSize)
		if size == idx.s {
			return recs, blobs, index
		}
		idx.s = size
	}
}

// writeTar writes the compacted tar laid out as recs, copying each blob
// from its old record in src, and syncs it.
func writeTar(ctx context.Context, w *os.File, src *os.File, old, recs []record, index, doc []byte) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	put := func(r record, data io.Reader) error {
		h, err := header(r.name, r.s)
		if err != nil {
			return err
		}
		bw.Write(h)
		if n, err := io.Copy(bw, data); err != nil {
			return err
		} else if n != r.s {
			return fmt.Errorf("member %q: %d bytes of %d: %w", r.name, n, r.s, io.ErrUnexpectedEOF)
		}
		_, err = bw.Write(make([]byte, r.end()-r.d-r.s))
		return err
	}
	if err := put(recs[0], bytes.NewReader(entryJSON(recs[1]))); err != nil {
		return err
	}
	if err := put(recs[1], padded(index, recs[1].s)); err != nil {
		return err
	}
	if err := put(recs[2], padded(doc, recs[2].s)); err != nil {
		return err
	}
	for i, r := range recs[3:] {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := put(r, io.NewSectionReader(src, old[i].d, old[i].s)); err != nil {
			return err
		}
	}
	if _, err := bw.Write(make([]byte, tailSize)); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return w.Sync()
}

func compactDir(ctx context.Context, src, dst string) error {
	lk, err := openLocked(src, os.O_RDONLY)
	if err != nil {
		return err
	}
	defer func() {
		unlock(lk)
		lk.Close()
	}()
	doc, err := os.ReadFile(filepath.Join(src, jsonName))
	if err != nil {
		return err
	}
	names, err := liveNames(ctx, src, doc, &dir{root: src})
	if err != nil {
		return err
	}
	if src == dst {
		return pruneBlobs(src, names)
	}
	tmp := atomicfile.TempName(dst)
	if err := os.Mkdir(tmp, 0o777); err != nil {
		return err
	}
	atomicfile.Track(tmp)
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
		atomicfile.Untrack(tmp)
	}()
	dirs := map[string]bool{tmp: true}
	for _, n := range append(names, jsonName) {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := filepath.Join(tmp, filepath.FromSlash(n))
		for d := filepath.Dir(p); len(d) > len(tmp); d = filepath.Dir(d) {
			dirs[d] = true
		}
		if err := copyFile(filepath.Join(src, filepath.FromSlash(n)), p); err != nil {
			return err
		}
	}
	for d := range dirs {
		if err := atomicfile.SyncDir(d); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		return err
	}
	ok = true
	return atomicfile.SyncDir(filepath.Dir(dst))
}

// copyFile copies the file from to the new file to, with its directories,
// and syncs it.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o777); err != nil {
		return err
	}
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, atomicfile.Perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// pruneBlobs removes the files under root/blobs that are not among live,
// and the directories that leaves empty.
func pruneBlobs(root string, live []string) error {
	keep := map[string]bool{}
	for _, n := range live {
		keep[n] = true
	}
	var dirs []string
	err := filepath.WalkDir(filepath.Join(root, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if !keep[filepath.ToSlash(rel)] {
			return os.Remove(p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i > 0; i-- { // deepest first; blobs/ itself stays
		os.Remove(dirs[i]) // fails, as it should, on a directory still holding files
	}
	return atomicfile.SyncDir(root)
}
