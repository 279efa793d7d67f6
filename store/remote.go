package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/lindigo/lindi/io/source"
)

// Remote is a Zarr v2 store served over HTTP: key "a/.zarray" is the URL
// base + "/a/.zarray". With consolidated metadata (.zmetadata) every metadata
// key is answered from memory and the hierarchy can be listed; without, Get
// only builds URLs, whose absence shows when they are read, and List knows
// nothing (plain HTTP has no directory listing).
type Remote struct {
	base string
	name string                     // base without its password, for errors
	meta map[string]json.RawMessage // from .zmetadata; nil when not consolidated
	tree map[string][]string
}

// NewRemote returns the store at base (an http(s) URL of the store's root).
// consolidated is the content of base/.zmetadata, or nil when the store has
// none.
func NewRemote(base string, consolidated []byte) (*Remote, error) {
	r := &Remote{base: strings.TrimRight(base, "/")}
	r.name = source.Redact(r.base)
	if consolidated == nil {
		return r, nil
	}
	var doc struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
		Format   int                        `json:"zarr_consolidated_format"`
	}
	if err := json.Unmarshal(sanitizeJSON(consolidated), &doc); err != nil {
		return nil, fmt.Errorf("%w: %s/.zmetadata: %v", ErrFormat, r.name, err)
	}
	if doc.Format != 1 || doc.Metadata == nil {
		return nil, fmt.Errorf("%w: %s/.zmetadata: zarr_consolidated_format %d with no metadata", ErrFormat, r.name, doc.Format)
	}
	r.meta, r.tree = doc.Metadata, childNodes(doc.Metadata)
	return r, nil
}

// Name returns the store's base URL, with any password redacted.
func (r *Remote) Name() string { return r.name }

// Listable reports whether the store has consolidated metadata, so that List
// knows the hierarchy.
func (r *Remote) Listable() bool { return r.meta != nil }

// Get locates key: in memory for consolidated metadata, else its URL.
func (r *Remote) Get(_ context.Context, key string) (Value, error) {
	if err := checkKey(key); err != nil {
		return Value{}, fmt.Errorf("store: %s: %w", r.name, err)
	}
	if r.meta != nil && isMetadataKey(key) {
		v, ok := r.meta[key]
		if !ok {
			return Value{}, fmt.Errorf("%w: %s: %q", ErrNotFound, r.name, key)
		}
		return Value{Data: v}, nil
	}
	return Value{URL: r.base + "/" + key, Len: -1}, nil
}

// List returns the child nodes of dir known from consolidated metadata.
func (r *Remote) List(_ context.Context, dir string) ([]string, error) {
	return r.tree[dir], nil
}

func isMetadataKey(key string) bool {
	_, name := splitKey(key)
	return name == ".zarray" || name == ".zgroup" || name == ".zattrs"
}

// checkKey refuses keys with empty, "." or ".." segments, which would leave the store.
func checkKey(key string) error {
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsRune(seg, '\\') {
			return fmt.Errorf("invalid key %q", key)
		}
	}
	return nil
}
