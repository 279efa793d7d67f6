package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/lindigo/lindi/io/source"
)

// LINDI is a store backed by a LINDI JSON reference file
// ({"version": 1, "refs": {...}, "templates": {...}}).
//
// A ref is a JSON object (metadata, returned as its JSON text), a string (inline
// bytes: "base64:"-prefixed, or raw text whose code points are the bytes), or
// [url], [url, offset, length]. "{{name}}" in a url is replaced from templates,
// and relative urls ("./x.h5", "x.h5") resolve against the location of the JSON
// file itself: its directory, or its URL. kerchunk's "gen" entries are
// expanded into refs (see expandGen); a document with a top-level member that
// is not understood, and so may define refs, is refused. zarrshadow's
// version 2 documents are read too: their "indexes" (see ChunkIndexes) say
// where the chunks of arrays too large to list live, and "sources" (the size
// and ETag of each referenced file when the document was made) is taken as
// the information it is.
type LINDI struct {
	name    string
	base    location
	members Members // the container's members, for "./" refs; nil for a bare document
	refs    map[string]json.RawMessage
	tmpl    map[string]string
	nodes   map[string][]string // directory → sorted child node names
	urls    sync.Map            // a ref's URL → its resolved (resolveURL)
	// top holds the document's top-level members other than refs and gen
	// (version, templates, generationMetadata), kept when it is rewritten.
	top     map[string]json.RawMessage
	indexes map[string]ChunkIndexRef
	// editable is set (Editable) on a store an editor changes: then mu
	// guards refs and nodes, as Set and Delete run beside reads. A store
	// that is only read takes no lock.
	editable bool
	mu       sync.RWMutex
}

// Members locates the members of the container a LINDI document was read
// from: a .lindi.tar or a .lindi.d directory.
type Members interface {
	// Member locates the bytes of the member name ("blobs/a/0"): the object
	// (a path or a URL) holding them, the offset of the first, and their
	// number (-1 when it cannot be known before they are read). An absent
	// member gives an error wrapping ErrNotFound.
	Member(ctx context.Context, name string) (Value, error)
}

// ParseLINDI parses the LINDI JSON document data, read from name (a local path or
// an http(s) URL, used to resolve relative refs). Refs are checked as they are
// used, so a malformed ref fails the read that needs it, naming the key.
func ParseLINDI(name string, data []byte) (*LINDI, error) {
	return parseLINDI(name, name, data, nil)
}

// ParseLINDIAt parses a LINDI JSON document read from name whose relative
// refs resolve against base, a path or URL, as if the document were there.
// With base "" the document has no location: its refs must be absolute
// URLs, and it may name no local file.
func ParseLINDIAt(name, base string, data []byte) (*LINDI, error) {
	return parseLINDI(name, base, data, nil)
}

// ParseContainer parses the LINDI JSON document data (lindi.json) of the
// container at name, a .lindi.tar file or a .lindi.d directory (a local path
// or an http(s) URL). A ref whose url starts with "./" names a member of the
// container, located by m and checked against its bounds; any other relative
// url, and Resolve, resolve against the location of the container itself (its
// directory, or its URL), as they would for a .lindi.json beside it.
func ParseContainer(name string, data []byte, m Members) (*LINDI, error) {
	if m == nil {
		return nil, fmt.Errorf("store: ParseContainer(%s): no members", name)
	}
	return parseLINDI(name, name, data, m)
}

// ParseContainerAt is ParseContainer for a container whose location is base
// rather than name ("" for none: then only its members and absolute URLs
// can be named).
func ParseContainerAt(name, base string, data []byte, m Members) (*LINDI, error) {
	if m == nil {
		return nil, fmt.Errorf("store: ParseContainer(%s): no members", name)
	}
	return parseLINDI(name, base, data, m)
}

func parseLINDI(name, at string, data []byte, m Members) (*LINDI, error) {
	base, err := parseLocation(at)
	if err != nil {
		return nil, err
	}
	name = source.Redact(name)
	doc, err := parseDoc(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, name, err)
	}
	if doc.Refs == nil {
		return nil, fmt.Errorf("store: %s: %w: no \"refs\" object", name, ErrFormat)
	}
	if doc.Version != nil && *doc.Version != 1 && *doc.Version != 2 {
		return nil, fmt.Errorf("%w: %s: version %d (want 1, or zarrshadow's 2)", ErrFormat, name, *doc.Version)
	}
	if doc.Indexes != nil && (doc.Version == nil || *doc.Version != 2) {
		return nil, fmt.Errorf("%w: %s: \"indexes\" in a document that is not version 2", ErrFormat, name)
	}
	s := &LINDI{name: name, base: base, members: m, refs: doc.Refs, tmpl: doc.Templates, top: doc.top, indexes: doc.Indexes}
	s.nodes = childNodes(doc.Refs)
	return s, nil
}

// Name returns the path or URL the document was read from, with any
// password redacted.
func (s *LINDI) Name() string { return s.name }

// Get locates the value of key.
func (s *LINDI) Get(ctx context.Context, key string) (Value, error) {
	raw, ok := s.Ref(key)
	if !ok {
		return Value{}, fmt.Errorf("%w: %s: %q", ErrNotFound, s.name, key)
	}
	v, err := s.decodeRef(ctx, raw)
	if err != nil {
		return Value{}, fmt.Errorf("store: %s: ref %q: %w", s.name, key, err)
	}
	return v, nil
}

// List returns the child nodes (groups and arrays) of dir.
func (s *LINDI) List(_ context.Context, dir string) ([]string, error) {
	if !s.editable {
		return s.nodes[dir], nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return slices.Clone(s.nodes[dir]), nil
}

func (s *LINDI) decodeRef(ctx context.Context, raw json.RawMessage) (Value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Value{}, fmt.Errorf("%w: empty ref", ErrFormat)
	}
	switch raw[0] {
	case '{':
		return Value{Data: raw}, nil
	case '"':
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return Value{}, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		b, err := inlineBytes(str)
		return Value{Data: b}, err
	case '[':
		return s.rangeRef(ctx, raw)
	}
	return Value{}, fmt.Errorf("%w: a ref must be an object, a string or [url, offset, length], not %.20s", ErrFormat, raw)
}

// inlineBytes decodes an inline string ref.
func inlineBytes(str string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(str, "base64:"); ok {
		b, err := base64.StdEncoding.DecodeString(rest)
		if err != nil {
			return nil, fmt.Errorf("%w: bad base64: %v", ErrFormat, err)
		}
		return b, nil
	}
	b := make([]byte, 0, len(str))
	for i, r := range str {
		if r > 0xff {
			return nil, fmt.Errorf("%w: inline text has code point U+%04X at byte %d; only U+0000–U+00FF encode bytes", ErrFormat, r, i)
		}
		b = append(b, byte(r))
	}
	return b, nil
}

func (s *LINDI) rangeRef(ctx context.Context, raw json.RawMessage) (Value, error) {
	u, v, ok := fastRange(raw)
	if !ok {
		var err error
		if u, v, err = slowRange(raw); err != nil {
			return Value{}, err
		}
	}
	url, err := s.resolveURL(u)
	if err != nil {
		return Value{}, err
	}
	if name, ok := strings.CutPrefix(url, "./"); ok && s.members != nil {
		return s.member(ctx, name, v)
	}
	v.URL = url
	return v, nil
}

// resolveURL expands the templates of a ref's URL and resolves it against
// the document's location, once per distinct URL: the chunks of an array
// share one (a template such as {{u1}}), and resolving it for each of
// thousands of chunks was most of the time of locating them.
func (s *LINDI) resolveURL(u string) (string, error) {
	if r, ok := s.urls.Load(u); ok {
		res := r.(resolved)
		return res.url, res.err
	}
	url, err := s.substitute(u)
	if err == nil && !(strings.HasPrefix(url, "./") && s.members != nil) {
		url, err = s.base.resolve(url) // a member ("./…") is looked up by rangeRef
	}
	s.urls.Store(u, resolved{url, err})
	return url, err
}

// resolved is a URL resolved by resolveURL, or why it could not be.
type resolved struct {
	url string
	err error
}

// fastRange parses the common form of a range ref, ["url", offset, length]
// with a plain ASCII string and plain non-negative integers, without
// encoding/json; ok is false for anything else, which slowRange parses.
func fastRange(raw []byte) (u string, v Value, ok bool) {
	i := skipSpace(raw, 1) // raw[0] is '['
	if i >= len(raw) || raw[i] != '"' {
		return "", Value{}, false
	}
	j := i + 1
	for j < len(raw) && raw[j] != '"' {
		if raw[j] == '\\' || raw[j] < 0x20 || raw[j] >= 0x80 {
			return "", Value{}, false
		}
		j++
	}
	if j >= len(raw) {
		return "", Value{}, false
	}
	u = string(raw[i+1 : j])
	var nums [2]int64
	k := j + 1
	for n := range nums {
		k = skipSpace(raw, k)
		if k >= len(raw) || raw[k] != ',' {
			return "", Value{}, false
		}
		k = skipSpace(raw, k+1)
		start := k
		var x int64
		for k < len(raw) && raw[k] >= '0' && raw[k] <= '9' {
			if x > (1<<63-1-9)/10 {
				return "", Value{}, false
			}
			x = x*10 + int64(raw[k]-'0')
			k++
		}
		if k == start || k-start > 1 && raw[start] == '0' {
			return "", Value{}, false
		}
		nums[n] = x
	}
	k = skipSpace(raw, k)
	if k+1 != len(raw) || raw[k] != ']' {
		return "", Value{}, false
	}
	return u, Value{Off: nums[0], Len: nums[1]}, true
}

// slowRange parses a range ref with encoding/json: [url] or [url, offset,
// length].
func slowRange(raw json.RawMessage) (string, Value, error) {
	var parts []json.RawMessage
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", Value{}, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	if len(parts) != 1 && len(parts) != 3 {
		return "", Value{}, fmt.Errorf("%w: a range ref is [url] or [url, offset, length], got %d items", ErrFormat, len(parts))
	}
	var u string
	if err := json.Unmarshal(parts[0], &u); err != nil {
		return "", Value{}, fmt.Errorf("%w: url is not a string", ErrFormat)
	}
	v := Value{Len: -1}
	if len(parts) == 3 {
		if err := json.Unmarshal(parts[1], &v.Off); err != nil || v.Off < 0 {
			return "", Value{}, fmt.Errorf("%w: offset %s is not a non-negative integer", ErrFormat, parts[1])
		}
		if err := json.Unmarshal(parts[2], &v.Len); err != nil || v.Len < 0 {
			return "", Value{}, fmt.Errorf("%w: length %s is not a non-negative integer", ErrFormat, parts[2])
		}
	}
	return u, v, nil
}

// member locates the range v (Off, and Len or -1 for all) of the container's
// member name, refusing a range that leaves the member.
func (s *LINDI) member(ctx context.Context, name string, v Value) (Value, error) {
	m, err := s.members.Member(ctx, name)
	if errors.Is(err, ErrNotFound) {
		// The key exists: its chunk is not missing but its ref is broken.
		return Value{}, fmt.Errorf("%w: ref names a member the container does not hold: %v", ErrFormat, err)
	}
	if err != nil {
		return Value{}, err
	}
	if m.Len < 0 { // the member's size is learnt when it is read
		return Value{URL: m.URL, Off: m.Off + v.Off, Len: v.Len}, nil
	}
	if v.Off > m.Len || v.Len > m.Len-v.Off {
		return Value{}, fmt.Errorf("%w: range [%d, +%d) is outside member %q of %d bytes", ErrFormat, v.Off, v.Len, name, m.Len)
	}
	if v.Len < 0 {
		v.Len = m.Len - v.Off
	}
	return Value{URL: m.URL, Off: m.Off + v.Off, Len: v.Len}, nil
}

// Resolve resolves a URL or path found in the document (an
// _EXTERNAL_ARRAY_LINK's url, say) as a ref's url is resolved: templates
// substituted, relative paths against the document's location. In a container
// (ParseContainer) it names a file beside the container, never a member: an
// HDF5 file is not kept inside a .lindi.tar.
func (s *LINDI) Resolve(ref string) (string, error) {
	u, err := s.expand(ref)
	if err != nil {
		return "", fmt.Errorf("store: %s: %w", s.name, err)
	}
	return u, nil
}

// expand substitutes templates in u and resolves it against the document's location.
func (s *LINDI) expand(u string) (string, error) {
	u, err := s.substitute(u)
	if err != nil {
		return "", err
	}
	return s.base.resolve(u)
}

// substitute replaces the templates in u.
func (s *LINDI) substitute(u string) (string, error) {
	for strings.Contains(u, "{{") {
		i := strings.Index(u, "{{")
		j := strings.Index(u[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("%w: unterminated template in %q", ErrFormat, u)
		}
		name := u[i+2 : i+j]
		val, ok := s.tmpl[name]
		if !ok {
			return "", fmt.Errorf("%w: template {{%s}} is not defined", ErrFormat, name)
		}
		if strings.Contains(val, "{{") {
			return "", fmt.Errorf("%w: template {{%s}} refers to another template", ErrFormat, name)
		}
		u = u[:i] + val + u[i+j+2:]
	}
	return u, nil
}

// childNodes indexes which keys are groups or arrays and files them under their parent directory.
func childNodes(refs map[string]json.RawMessage) map[string][]string {
	seen := map[string]bool{}
	nodes := map[string][]string{}
	for k := range refs {
		dir, file := splitKey(k)
		if file != ".zarray" && file != ".zgroup" && file != ".zattrs" && file != "zarr.json" || dir == "" || seen[dir] {
			continue
		}
		// Register the node and any ancestor that has no metadata of its own.
		for dir != "" && !seen[dir] {
			seen[dir] = true
			parent, child := splitKey(dir)
			nodes[parent] = append(nodes[parent], child)
			dir = parent
		}
	}
	for _, names := range nodes {
		sort.Strings(names)
	}
	return nodes
}

// splitKey splits "a/b/c" into "a/b" and "c".
func splitKey(k string) (dir, name string) {
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		return k[:i], k[i+1:]
	}
	return "", k
}

type document struct {
	Version   *int
	Refs      map[string]json.RawMessage
	Templates map[string]string
	Indexes   map[string]ChunkIndexRef
	top       map[string]json.RawMessage // the members kept on a rewrite
}

// ChunkIndexRef is one entry of a zarrshadow document's "indexes": the
// chunks of the array are byte ranges of the file URL, located by the Zarr
// v3 array at Index (a path or URL relative to the document, as a ref's url
// is) of shape (chunk grid..., 2) holding (offset, nbytes) per chunk, 2^64-1
// for a chunk never written.
type ChunkIndexRef struct {
	URL   string `json:"url"`
	Index string `json:"index"`
}

// ChunkIndexes returns the document's chunk indexes by array key
// ("acquisition/ElectricalSeries/data"), nil when it has none. The map is
// the store's: callers must not change it.
func (s *LINDI) ChunkIndexes() map[string]ChunkIndexRef { return s.indexes }

// parseDoc parses the top level of a LINDI document. The refs are slices of
// data, so metadata objects keep any NaN or Infinity tokens for zarrmeta.
func parseDoc(data []byte) (*document, error) {
	clean := sanitizeJSON(data)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, err
	}
	doc := &document{}
	if v, ok := top["version"]; ok {
		if err := json.Unmarshal(v, &doc.Version); err != nil {
			return nil, fmt.Errorf("version: %v", err)
		}
	}
	if v, ok := top["templates"]; ok {
		if err := json.Unmarshal(v, &doc.Templates); err != nil {
			return nil, fmt.Errorf("templates: %v", err)
		}
	}
	if err := checkMembers(top); err != nil {
		return nil, err
	}
	if v, ok := top["indexes"]; ok {
		if err := json.Unmarshal(v, &doc.Indexes); err != nil {
			return nil, fmt.Errorf("indexes: not an object of {url, index}: %v", err)
		}
		for k, e := range doc.Indexes {
			if e.URL == "" || e.Index == "" {
				return nil, fmt.Errorf("indexes: %q needs a \"url\" and an \"index\"", k)
			}
		}
		if doc.Indexes == nil {
			doc.Indexes = map[string]ChunkIndexRef{}
		}
	}
	doc.top = map[string]json.RawMessage{}
	for _, k := range []string{"version", "templates", "generationMetadata", "indexes", "sources"} {
		if v, ok := top[k]; ok {
			doc.top[k] = v
		}
	}
	if _, ok := top["refs"]; !ok {
		return doc, nil
	}
	refs, err := rawMembers(data, clean)
	if err != nil {
		return nil, fmt.Errorf("refs: %v", err)
	}
	doc.Refs = refs
	if g, ok := top["gen"]; ok {
		gen, err := expandGen(g, doc.Templates)
		if err != nil {
			return nil, err
		}
		maps.Copy(doc.Refs, gen) // as fsspec does: a generated ref wins
	}
	return doc, nil
}

// knownMembers are the top-level members of a reference document this
// reader understands. Any other may define refs (kerchunk's parquet
// "record_size", a future extension), and reading the file without them
// would turn their keys into fill values, so checkMembers refuses it.
var knownMembers = map[string]bool{
	"version": true, "refs": true, "templates": true, "gen": true, "generationMetadata": true,
	"indexes": true, "sources": true,
}

func checkMembers(top map[string]json.RawMessage) error {
	if _, ok := top["record_size"]; ok {
		return fmt.Errorf("kerchunk parquet references (\"record_size\") are not supported")
	}
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if !knownMembers[k] {
			return fmt.Errorf("top-level member %q is not understood (known: version, refs, templates, gen, generationMetadata, indexes, sources)", k)
		}
	}
	return nil
}

// rawMembers finds the "refs" object of the document and returns its members
// as slices of orig (clean is orig with non-finite tokens replaced in place,
// and valid JSON: parseDoc decoded it). It scans the bytes itself: a
// json.Decoder taking the refs one token at a time cost most of the time of
// opening a remote LINDI file.
func rawMembers(orig, clean []byte) (map[string]json.RawMessage, error) {
	var refs map[string]json.RawMessage
	top := skipSpace(clean, 0)
	_, err := eachMember(clean, top, func(key string, vs, ve int) error {
		if key != "refs" {
			return nil // a repeated "refs": the last wins, as in json.Unmarshal
		}
		if clean[vs] != '{' {
			return fmt.Errorf("not an object")
		}
		refs = map[string]json.RawMessage{}
		_, err := eachMember(clean, vs, func(k string, s, e int) error {
			refs[k] = json.RawMessage(orig[s:e:e])
			return nil
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if refs == nil {
		return nil, fmt.Errorf("missing")
	}
	return refs, nil
}

// errScan reports JSON that the scanner cannot follow; parseDoc validated
// the document first, so it means a bug rather than bad input.
var errScan = errors.New("malformed JSON")

// eachMember calls fn with each member of the JSON object starting at b[i]
// (its key, and the start and end of its value) and returns the offset
// after the object.
func eachMember(b []byte, i int, fn func(key string, vs, ve int) error) (int, error) {
	if i >= len(b) || b[i] != '{' {
		return 0, errScan
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for i < len(b) {
		ke := skipString(b, i)
		if ke < 0 {
			return 0, errScan
		}
		key := string(b[i+1 : ke-1])
		if bytes.IndexByte(b[i:ke], '\\') >= 0 {
			if err := json.Unmarshal(b[i:ke], &key); err != nil {
				return 0, err
			}
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, errScan
		}
		vs := skipSpace(b, i+1)
		ve := skipValue(b, vs)
		if ve < 0 {
			return 0, errScan
		}
		if err := fn(key, vs, ve); err != nil {
			return 0, err
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '}':
			return i + 1, nil
		case ',':
			i = skipSpace(b, i+1)
		default:
			return 0, errScan
		}
	}
	return 0, errScan
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i], or -1.
func skipString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the offset after the JSON value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := skipString(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	for j := i; j < len(b); j++ {
		switch b[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
	}
	return len(b)
}
