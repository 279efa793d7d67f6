package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Editable makes the store changeable by Set and Delete, which may then run
// while other goroutines read. Call it before the store is shared; a store
// that is never made editable reads without taking a lock.
func (s *LINDI) Editable() { s.editable = true }

// Ref returns the raw ref of key as the document holds it.
func (s *LINDI) Ref(key string) (json.RawMessage, bool) {
	if !s.editable {
		raw, ok := s.refs[key]
		return raw, ok
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	raw, ok := s.refs[key]
	return raw, ok
}

// mustEdit refuses a change to a store that was not made Editable.
func (s *LINDI) mustEdit(op string) {
	if !s.editable {
		panic("store: " + op + " on a LINDI store not made Editable")
	}
}

// Set makes raw the ref of key (a JSON object for metadata, an inline string
// or a [url, offset, length] range), so that the next Get and List see it.
// The store must be Editable.
func (s *LINDI) Set(key string, raw json.RawMessage) {
	s.mustEdit("Set")
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refs == nil {
		s.refs = map[string]json.RawMessage{}
	}
	s.refs[key] = raw
	dir, file := splitKey(key)
	if file != ".zarray" && file != ".zgroup" && file != ".zattrs" {
		return
	}
	// Register the node and any ancestor not listed yet.
	for dir != "" {
		parent, child := splitKey(dir)
		names := s.nodes[parent]
		i, found := slices.BinarySearch(names, child)
		if found {
			return
		}
		if s.nodes == nil {
			s.nodes = map[string][]string{}
		}
		s.nodes[parent] = slices.Insert(names, i, child)
		dir = parent
	}
}

// Delete removes the node at key ("a/b") and every key under it, or the
// single key when it names no node; it reports the number of keys removed.
func (s *LINDI) Delete(key string) int {
	s.mustEdit("Delete")
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	if _, ok := s.refs[key]; ok {
		delete(s.refs, key)
		n++
	}
	prefix := key + "/"
	for k := range s.refs {
		if strings.HasPrefix(k, prefix) {
			delete(s.refs, k)
			n++
		}
	}
	for dir := range s.nodes {
		if dir == key || strings.HasPrefix(dir, prefix) {
			delete(s.nodes, dir)
		}
	}
	parent, child := splitKey(key)
	if names := s.nodes[parent]; names != nil {
		if i, found := slices.BinarySearch(names, child); found {
			s.nodes[parent] = slices.Delete(names, i, i+1)
		}
	}
	return n
}

// Keys returns the keys under prefix ("a/b/" for the keys of node a/b, ""
// for all), sorted.
func (s *LINDI) Keys(prefix string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var keys []string
	for k := range s.refs {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// Document returns the document as it stands: its top-level members
// (version, templates, generationMetadata) as they were read, and refs with
// the keys sorted, one to a line, each value as it was set. The refs of a
// generated ("gen") document are written out.
func (s *LINDI) Document() []byte {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return writeDocument(s.top, s.refs)
}

// writeDocument writes a LINDI document: the top-level members top and
// refs, sorted, a ref to a line.
func writeDocument(top0, refs map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.Grow(64 * len(refs))
	top := maps.Clone(top0)
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	top["refs"] = nil
	b.WriteString("{")
	for i, k := range slices.Sorted(maps.Keys(top)) {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		writeKey(&b, k)
		if k != "refs" {
			b.Write(top[k])
			continue
		}
		b.WriteString("{")
		for j, rk := range slices.Sorted(maps.Keys(refs)) {
			if j > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n    ")
			writeKey(&b, rk)
			b.Write(bytes.TrimSpace(refs[rk]))
		}
		b.WriteString("\n  }")
	}
	b.WriteString("\n}\n")
	return b.Bytes()
}

// Absolute returns the document with every range ref naming its bytes by an
// absolute path or URL: templates expanded, relative paths resolved against
// the document's location, a container's members ("./blobs/…") as ranges of
// the container file, and _EXTERNAL_ARRAY_LINK urls resolved too. A LINDI
// file made from it reads the same bytes wherever it is written.
func (s *LINDI) Absolute(ctx context.Context) ([]byte, error) {
	s.mu.RLock()
	keys := slices.Collect(maps.Keys(s.refs))
	s.mu.RUnlock()
	refs := make(map[string]json.RawMessage, len(keys))
	for _, k := range keys {
		raw, _ := s.Ref(k)
		raw = bytes.TrimSpace(raw)
		switch {
		case len(raw) > 0 && raw[0] == '[':
			v, err := s.Get(ctx, k)
			if err != nil {
				return nil, err
			}
			if raw, err = absoluteRef(v); err != nil {
				return nil, fmt.Errorf("store: %s: ref %q: %w", s.name, k, err)
			}
		case strings.HasSuffix(k, ".zattrs") && bytes.Contains(raw, []byte("_EXTERNAL_ARRAY_LINK")):
			var err error
			if raw, err = s.absoluteLink(raw); err != nil {
				return nil, fmt.Errorf("store: %s: %s: %w", s.name, k, err)
			}
		}
		refs[k] = raw
	}
	top := map[string]json.RawMessage{"version": json.RawMessage("1")}
	if g, ok := s.top["generationMetadata"]; ok {
		top["generationMetadata"] = g
	}
	return writeDocument(top, refs), nil
}

// InlineRef returns the ref that keeps data in the document itself, as
// Python lindi stores it: the bytes as a JSON string of the same code points
// when they are all ASCII (control characters included), "base64:…"
// otherwise.
func InlineRef(data []byte) json.RawMessage {
	ascii := true
	for _, c := range data {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		out := make([]byte, 0, len(data)*4/3+12)
		out = append(out, `"base64:`...)
		out = base64.StdEncoding.AppendEncode(out, data)
		return append(out, '"')
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(data)) // a string of ASCII always encodes
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// absoluteRef writes the located value v as a ref: inline when its bytes
// are in memory (a member of a container held in memory).
func absoluteRef(v Value) (json.RawMessage, error) {
	if v.InMemory() {
		return InlineRef(v.Data), nil
	}
	u := v.URL
	if !IsURL(u) {
		abs, err := filepath.Abs(u)
		if err != nil {
			return nil, err
		}
		u = abs
	}
	if v.Len < 0 {
		if v.Off != 0 {
			return nil, fmt.Errorf("%w: a range of unknown length at %d", ErrFormat, v.Off)
		}
		return json.Marshal([]any{u})
	}
	return json.Marshal([]any{u, v.Off, v.Len})
}

// absoluteLink resolves the url of an _EXTERNAL_ARRAY_LINK in .zattrs raw.
func (s *LINDI) absoluteLink(raw json.RawMessage) (json.RawMessage, error) {
	m, err := ObjectMembers(raw)
	if err != nil {
		return nil, err
	}
	var link map[string]any
	if err := json.Unmarshal(m["_EXTERNAL_ARRAY_LINK"], &link); err != nil {
		return nil, fmt.Errorf("%w: _EXTERNAL_ARRAY_LINK: %v", ErrFormat, err)
	}
	u, ok := link["url"].(string)
	if !ok {
		return nil, fmt.Errorf("%w: _EXTERNAL_ARRAY_LINK has no url", ErrFormat)
	}
	if u, err = s.Resolve(u); err != nil {
		return nil, err
	}
	if !IsURL(u) {
		if u, err = filepath.Abs(u); err != nil {
			return nil, err
		}
	}
	link["url"] = u
	if m["_EXTERNAL_ARRAY_LINK"], err = json.Marshal(link); err != nil {
		return nil, err
	}
	return ObjectJSON(m), nil
}

// ObjectJSON writes the members m as a compact JSON object with its keys
// sorted, each value as m holds it (the inverse of ObjectMembers).
func ObjectJSON(m map[string]json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		q, _ := json.Marshal(k) // a string always marshals
		b.Write(q)
		b.WriteByte(':')
		b.Write(m[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

func writeKey(b *bytes.Buffer, k string) {
	q, _ := json.Marshal(k) // a string always marshals
	b.Write(q)
	b.WriteString(": ")
}

// ObjectMembers splits the JSON object b (a .zattrs, which may hold the bare
// tokens NaN and Infinity as Python writes them) into its members, each as
// the bytes b holds.
func ObjectMembers(b []byte) (map[string]json.RawMessage, error) {
	clean := sanitizeJSON(b)
	if !json.Valid(clean) {
		return nil, fmt.Errorf("%w: not valid JSON", ErrFormat)
	}
	i := skipSpace(clean, 0)
	if i >= len(clean) || clean[i] != '{' {
		return nil, fmt.Errorf("%w: not a JSON object", ErrFormat)
	}
	m := map[string]json.RawMessage{}
	_, err := eachMember(clean, i, func(k string, s, e int) error {
		m[k] = json.RawMessage(b[s:e:e])
		return nil
	})
	if err != nil {
		return nil, err
	}
	return m, nil
}
