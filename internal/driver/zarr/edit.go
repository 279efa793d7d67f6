package zarr

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// bareSink is implemented by a sink that keeps everything in its document
// (a .lindi.json): its "./" refs name files beside it, not members.
type bareSink interface{ bare() }

// editor changes a LINDI document in memory and puts chunks into its sink;
// Commit hands the document to the sink.
type editor struct {
	t    *tree
	st   *store.LINDI
	sink driver.Sink

	mu    sync.Mutex                     // serialises metadata changes
	metas map[string]*zarrmeta.ArrayMeta // dataset key → its .zarray, for chunk keys
	dirty bool
}

// OpenEditor parses doc, the current document (a LINDI document) of the
// container sink was opened on, and returns its tree and the editor that
// changes it. fresh says that doc is not the container's committed state
// yet (a new file made from a document), so that the first Commit writes it
// even if nothing else changes. Every writable container is LINDI, whose
// tree this driver owns: h5 edits through it.
func OpenEditor(ctx context.Context, env *driver.Env, name string, doc []byte, sink driver.Sink, fresh bool) (*driver.Group, driver.Editor, error) {
	var st *store.LINDI
	var err error
	if _, ok := sink.(bareSink); ok {
		st, err = store.ParseLINDI(name, doc)
	} else {
		st, err = store.ParseContainer(name, doc, sink)
	}
	if err != nil {
		return nil, nil, err
	}
	st.Editable()
	t := &tree{env: env, st: st, lindi: st}
	root, err := t.root(ctx)
	if err != nil {
		return nil, nil, err
	}
	root.Document = st.Absolute
	return root, &editor{t: t, st: st, sink: sink, metas: map[string]*zarrmeta.ArrayMeta{}, dirty: fresh}, nil
}

func keyOf(path string) string { return strings.TrimPrefix(path, "/") }

// exists reports whether a node (group, dataset or soft link) is at key.
func (e *editor) exists(key string) bool {
	for _, f := range []string{".zgroup", ".zarray", ".zattrs"} {
		if _, ok := e.st.Ref(driver.JoinKey(key, f)); ok {
			return true
		}
	}
	return false
}

// checkNew refuses to make a node at path when one is there or its parent
// group is not.
func (e *editor) checkNew(path string) (string, error) {
	key := keyOf(path)
	if key == "" {
		return "", fmt.Errorf("%s: %w", path, fs.ErrExist)
	}
	if e.exists(key) {
		return "", fmt.Errorf("%s: %w", path, fs.ErrExist)
	}
	parent, _ := splitPath(key)
	if parent != "" {
		if _, ok := e.st.Ref(driver.JoinKey(parent, ".zgroup")); !ok {
			return "", fmt.Errorf("%s: parent group /%s: %w", path, parent, fs.ErrNotExist)
		}
		if e.isLink(parent) {
			return "", fmt.Errorf("%s: parent /%s is a soft link", path, parent)
		}
	}
	return key, nil
}

func (e *editor) isLink(key string) bool {
	za, err := e.t.zattrs(context.Background(), key)
	if err != nil {
		return false
	}
	_, ok := za.SoftLink()
	return ok
}

func splitPath(key string) (dir, name string) {
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		return key[:i], key[i+1:]
	}
	return "", key
}

func (e *editor) CreateGroup(ctx context.Context, path string) (*driver.Group, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key, err := e.checkNew(path)
	if err != nil {
		return nil, err
	}
	e.st.Set(driver.JoinKey(key, ".zgroup"), json.RawMessage(`{"zarr_format":2}`))
	e.dirty = true
	return &driver.Group{Attrs: map[string]any{}}, nil
}

func (e *editor) CreateDataset(ctx context.Context, path string, spec *driver.DatasetSpec) (*driver.Dataset, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key, err := e.checkNew(path)
	if err != nil {
		return nil, err
	}
	zarray, zattrs, err := datasetMeta(spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	za, err := zarrmeta.ParseAttrs(zattrs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d, err := e.t.dataset(key, path, zarray, za)
	if err != nil {
		return nil, err
	}
	if d.Err != nil {
		return nil, d.Err
	}
	e.st.Set(driver.JoinKey(key, ".zarray"), zarray)
	if len(zattrs) > 2 {
		e.st.Set(driver.JoinKey(key, ".zattrs"), zattrs)
	}
	delete(e.metas, key)
	e.dirty = true
	return d, nil
}

// datasetMeta writes the .zarray and .zattrs of a new dataset.
func datasetMeta(spec *driver.DatasetSpec) (zarray, zattrs []byte, err error) {
	shape, chunks := spec.Shape, spec.Chunks
	attrs := map[string]any{}
	if len(shape) == 0 {
		shape, chunks = []int{1}, []int{1}
		attrs["_SCALAR"] = true
	}
	if len(chunks) != len(shape) {
		return nil, nil, fmt.Errorf("chunks %v do not match shape %v", chunks, shape)
	}
	for i := range shape {
		if shape[i] < 0 || chunks[i] < 1 {
			return nil, nil, fmt.Errorf("shape %v with chunks %v: a dimension is negative or a chunk empty", shape, chunks)
		}
	}
	if spec.Compound != nil {
		attrs["_COMPOUND_DTYPE"] = spec.Compound
	}
	fill := spec.Fill
	if fill == nil {
		fill = defaultFill(spec.DType)
	}
	compressor := spec.Compressor
	if len(bytes.TrimSpace(compressor)) == 0 {
		compressor = json.RawMessage("null")
	}
	var filters any
	if len(spec.Filters) > 0 {
		filters = spec.Filters
	}
	m := map[string]any{
		"chunks": chunks, "compressor": compressor, "dtype": spec.DType, "fill_value": fill,
		"filters": filters, "order": "C", "shape": shape, "zarr_format": 2,
	}
	if zarray, err = json.Marshal(m); err != nil {
		return nil, nil, err
	}
	if zattrs, err = json.Marshal(attrs); err != nil {
		return nil, nil, err
	}
	return zarray, zattrs, nil
}

// defaultFill is the fill value Python lindi writes for a dtype.
func defaultFill(dt zarrmeta.DType) json.RawMessage {
	switch dt.Kind {
	case zarrmeta.KindFloat:
		return json.RawMessage("0.0")
	case zarrmeta.KindBool:
		return json.RawMessage("false")
	case zarrmeta.KindBytes, zarrmeta.KindUnicode:
		return json.RawMessage(`""`)
	case zarrmeta.KindStruct:
		return json.RawMessage("null")
	}
	return json.RawMessage("0")
}

// attrsOf returns the raw .zattrs members of the node at key.
func (e *editor) attrsOf(path string) (string, map[string]json.RawMessage, error) {
	key := keyOf(path)
	if !e.exists(key) && key != "" {
		return "", nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	raw, ok := e.st.Ref(driver.JoinKey(key, ".zattrs"))
	if !ok {
		return key, map[string]json.RawMessage{}, nil
	}
	m, err := store.ObjectMembers(raw)
	if err != nil {
		return "", nil, fmt.Errorf("%s/.zattrs: %w", key, err)
	}
	return key, m, nil
}

// putAttrs writes the .zattrs of the node at key and returns the user
// attributes a reader sees.
func (e *editor) putAttrs(key string, m map[string]json.RawMessage) (map[string]any, error) {
	b := store.ObjectJSON(m)
	za, err := zarrmeta.ParseAttrs(b)
	if err != nil {
		return nil, err
	}
	attrs, err := e.t.userAttrs(za)
	if err != nil {
		return nil, err
	}
	e.st.Set(driver.JoinKey(key, ".zattrs"), b)
	e.dirty = true
	return attrs, nil
}

// checkAttrName refuses the names of LINDI's markers and this module's
// (zarrmeta.IsMarker), which are not user attributes.
func checkAttrName(name string) error {
	switch {
	case zarrmeta.IsMarker(name):
		return fmt.Errorf("attribute name %q is reserved by LINDI", name)
	case name == "":
		return errors.New("empty attribute name")
	}
	return nil
}

func (e *editor) SetAttr(ctx context.Context, path, name string, v any) (map[string]any, error) {
	return e.changeAttr(path, name, func(m map[string]json.RawMessage) error {
		if _, ok := m["_SOFT_LINK"]; ok {
			return fmt.Errorf("%s is a soft link: attributes belong to its target", path)
		}
		v, err := e.prepare(v)
		if err == nil {
			m[name], err = encodeAttr(v)
		}
		if err != nil {
			return fmt.Errorf("%s: attribute %q: %w", path, name, err)
		}
		return nil
	})
}

func (e *editor) DeleteAttr(ctx context.Context, path, name string) (map[string]any, error) {
	return e.changeAttr(path, name, func(m map[string]json.RawMessage) error {
		if _, ok := m[name]; !ok {
			return fmt.Errorf("%s: attribute %q: %w", path, name, fs.ErrNotExist)
		}
		delete(m, name)
		return nil
	})
}

// changeAttr checks name, lets change alter the .zattrs members of the
// node at path, and writes them back, returning the attributes a reader
// now sees.
func (e *editor) changeAttr(path, name string, change func(m map[string]json.RawMessage) error) (map[string]any, error) {
	if err := checkAttrName(name); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	key, m, err := e.attrsOf(path)
	if err != nil {
		return nil, err
	}
	if err := change(m); err != nil {
		return nil, err
	}
	return e.putAttrs(key, m)
}

// prepare replaces the references in an attribute value by the JSON
// objects LINDI stores for them.
func (e *editor) prepare(v any) (any, error) {
	switch v := v.(type) {
	case driver.Ref:
		return e.refObject(v.Path)
	case []driver.Ref:
		out := make([]any, len(v))
		for i, r := range v {
			o, err := e.refObject(r.Path)
			if err != nil {
				return nil, err
			}
			out[i] = o
		}
		return out, nil
	}
	return v, nil
}

// refObject is the {"_REFERENCE": …} object of a reference to path, with the
// object ids lindi checks when it resolves one (null where the object has
// none).
func (e *editor) refObject(path string) (json.RawMessage, error) {
	ref, err := e.refValue(path)
	if err != nil {
		return nil, err
	}
	return json.Marshal(ref)
}

func (e *editor) refValue(path string) (map[string]any, error) {
	key := keyOf(path)
	if key != "" && !e.exists(key) {
		return nil, fmt.Errorf("reference to %s: %w", path, fs.ErrNotExist)
	}
	return map[string]any{"_REFERENCE": map[string]any{
		"object_id": e.objectID(key), "path": "/" + key, "source": ".", "source_object_id": e.objectID(""),
	}}, nil
}

// objectID is the object_id attribute of the node at key, or nil.
func (e *editor) objectID(key string) any {
	za, err := e.t.zattrs(context.Background(), key)
	if err != nil {
		return nil
	}
	if v, ok := za.Get("object_id"); ok {
		if s, ok := v.(string); ok {
			return s
		}
	}
	return nil
}

func (e *editor) RefItem(ctx context.Context, path string) (any, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.refValue(path)
}

func (e *editor) SoftLink(ctx context.Context, path, target string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	key, err := e.checkNew(path)
	if err != nil {
		return err
	}
	link, err := json.Marshal(map[string]any{"_SOFT_LINK": map[string]string{"path": target}})
	if err != nil {
		return err
	}
	// As Python lindi: an empty group carrying the link.
	e.st.Set(driver.JoinKey(key, ".zgroup"), json.RawMessage(`{"zarr_format":2}`))
	e.st.Set(driver.JoinKey(key, ".zattrs"), link)
	e.dirty = true
	return nil
}

func (e *editor) Delete(ctx context.Context, path string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := keyOf(path)
	if key == "" {
		return errors.New("the root group cannot be deleted")
	}
	if !e.exists(key) {
		return fmt.Errorf("%s: %w", path, fs.ErrNotExist)
	}
	e.st.Delete(key)
	for k := range e.metas {
		if k == key || strings.HasPrefix(k, key+"/") {
			delete(e.metas, k)
		}
	}
	e.dirty = true
	return nil
}

func (e *editor) Import(ctx context.Context, path string, doc []byte, from string) (driver.Link, error) {
	top, err := store.ObjectMembers(doc)
	if err != nil {
		return driver.Link{}, fmt.Errorf("copy of %s: %w", from, err)
	}
	raw, ok := top["refs"]
	if !ok {
		return driver.Link{}, fmt.Errorf("copy of %s: %w: no refs", from, driver.ErrFormat)
	}
	refs, err := store.ObjectMembers(raw)
	if err != nil {
		return driver.Link{}, fmt.Errorf("copy of %s: %w", from, err)
	}
	src := keyOf(from)
	prefix := src + "/"
	if src == "" {
		prefix = ""
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	key, err := e.checkNew(path)
	if err != nil {
		return driver.Link{}, err
	}
	n := 0
	for k, v := range refs {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			continue
		}
		e.st.Set(driver.JoinKey(key, rest), v)
		n++
	}
	if n == 0 {
		return driver.Link{}, fmt.Errorf("copy of %s: %w", from, fs.ErrNotExist)
	}
	e.dirty = true
	parent, name := splitPath(key)
	parentPath := "/" + parent
	return e.t.child(ctx, parent, parentPath, name, strings.Count(key, "/")+1)
}

func (e *editor) Writable(ctx context.Context, path string) error {
	za, err := e.t.zattrs(ctx, keyOf(path))
	if err != nil {
		return err
	}
	if _, ok := za.ExternalArrayLink(); ok {
		return fmt.Errorf("%s is an _EXTERNAL_ARRAY_LINK dataset, whose data is read from an HDF5 file: a write would be shadowed by it", path)
	}
	return nil
}

// meta returns the parsed .zarray of the dataset at key.
func (e *editor) meta(key string) (*zarrmeta.ArrayMeta, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if m, ok := e.metas[key]; ok {
		return m, nil
	}
	raw, ok := e.st.Ref(driver.JoinKey(key, ".zarray"))
	if !ok {
		return nil, fmt.Errorf("/%s is not a dataset", key)
	}
	m, err := zarrmeta.ParseArray(raw)
	if err != nil {
		return nil, fmt.Errorf("%s/.zarray: %w", key, err)
	}
	e.metas[key] = m
	return m, nil
}

func (e *editor) PutChunk(ctx context.Context, path string, coords []int, data []byte) error {
	ck, err := e.chunkKey(path, coords)
	if err != nil {
		return err
	}
	var ref json.RawMessage
	if len(data) < driver.InlineLimit {
		ref = driver.InlineRef(data)
	} else if ref, err = e.sink.Blob(ctx, ck, data); err != nil {
		return err
	}
	e.set(ck, ref)
	return nil
}

func (e *editor) PutRef(ctx context.Context, path string, coords []int, ref json.RawMessage) error {
	ck, err := e.chunkKey(path, coords)
	if err != nil {
		return err
	}
	e.set(ck, ref)
	return nil
}

// chunkKey is the key of the chunk at coords of the dataset at path.
func (e *editor) chunkKey(path string, coords []int) (string, error) {
	key := keyOf(path)
	m, err := e.meta(key)
	if err != nil {
		return "", err
	}
	return driver.JoinKey(key, m.ChunkKey(coords)), nil
}

func (e *editor) set(key string, ref json.RawMessage) {
	e.st.Set(key, ref)
	e.mu.Lock()
	e.dirty = true
	e.mu.Unlock()
}

func (e *editor) Resize(ctx context.Context, path string, shape []int) (*driver.Dataset, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key := keyOf(path)
	raw, ok := e.st.Ref(driver.JoinKey(key, ".zarray"))
	if !ok {
		return nil, fmt.Errorf("%s is not a dataset", path)
	}
	m, err := store.ObjectMembers(raw)
	if err != nil {
		return nil, fmt.Errorf("%s/.zarray: %w", key, err)
	}
	old, err := zarrmeta.ParseArray(raw)
	if err != nil {
		return nil, fmt.Errorf("%s/.zarray: %w", key, err)
	}
	if len(shape) != len(old.Shape) {
		return nil, fmt.Errorf("%s: a shape of rank %d for a dataset of rank %d", path, len(shape), len(old.Shape))
	}
	za, err := e.t.zattrs(ctx, key)
	if err != nil {
		return nil, err
	}
	if _, ok := za.ExternalArrayLink(); ok {
		return nil, fmt.Errorf("%s is an _EXTERNAL_ARRAY_LINK dataset: materialize it first", path)
	}
	if za.Scalar() {
		return nil, fmt.Errorf("%s is a scalar", path)
	}
	if m["shape"], err = json.Marshal(shape); err != nil {
		return nil, err
	}
	zarray := store.ObjectJSON(m)
	d, err := e.t.dataset(key, path, zarray, za)
	if err != nil {
		return nil, err
	}
	if d.Err != nil {
		return nil, d.Err
	}
	// Chunks that now lie outside the grid are dropped, as zarr does.
	for _, k := range e.st.Keys(driver.JoinKey(key, "")) {
		coords, ok := chunkCoords(k[len(driver.JoinKey(key, "")):], old)
		if !ok {
			continue
		}
		for i, c := range coords {
			if c*old.Chunks[i] >= shape[i] {
				e.st.Delete(k)
				break
			}
		}
	}
	e.st.Set(driver.JoinKey(key, ".zarray"), zarray)
	delete(e.metas, key)
	e.dirty = true
	return d, nil
}

// chunkCoords parses the chunk key rest ("3.1") of array m.
func chunkCoords(rest string, m *zarrmeta.ArrayMeta) ([]int, bool) {
	parts := strings.Split(rest, m.Separator)
	if len(parts) != len(m.Shape) {
		return nil, false
	}
	coords := make([]int, len(parts))
	for i, p := range parts {
		c, err := strconv.Atoi(p)
		if err != nil || c < 0 {
			return nil, false
		}
		coords[i] = c
	}
	return coords, true
}

func (e *editor) Unlink(ctx context.Context, path string) (*driver.Dataset, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	key, m, err := e.attrsOf(path)
	if err != nil {
		return nil, err
	}
	if _, ok := m["_EXTERNAL_ARRAY_LINK"]; !ok {
		return nil, fmt.Errorf("%s has no _EXTERNAL_ARRAY_LINK", path)
	}
	delete(m, "_EXTERNAL_ARRAY_LINK")
	if _, err := e.putAttrs(key, m); err != nil {
		return nil, err
	}
	zarray, ok := e.st.Ref(driver.JoinKey(key, ".zarray"))
	if !ok {
		return nil, fmt.Errorf("%s is not a dataset", path)
	}
	za, err := e.t.zattrs(ctx, key)
	if err != nil {
		return nil, err
	}
	return e.t.dataset(key, path, zarray, za)
}

func (e *editor) Commit(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.dirty {
		return nil
	}
	if err := e.sink.Commit(ctx, e.st.Document()); err != nil {
		return err
	}
	e.dirty = false
	return nil
}

func (e *editor) Close() error { return e.sink.Close() }
