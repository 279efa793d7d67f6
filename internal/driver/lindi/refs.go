package lindi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// checkRefs checks that doc is a LINDI document the container at path can
// hold: it parses as the reader parses it, and every ref naming a member
// ("./…", after templates) names one that m holds, within its bounds. It
// returns the names of the members the refs name. Refs made by "gen" are
// not checked.
func checkRefs(ctx context.Context, path string, doc []byte, m store.Members) (map[string]bool, error) {
	rec := &recorder{m: m, names: map[string]bool{}}
	st, err := store.ParseContainer(path, doc, rec)
	if err != nil {
		return nil, fmt.Errorf("lindi: %s: document: %w", path, err)
	}
	keys, _, err := rangeKeys(doc)
	if err != nil {
		return nil, fmt.Errorf("lindi: %s: document: %w", path, err)
	}
	for _, k := range keys {
		if _, err := st.Get(ctx, k); err != nil {
			return nil, fmt.Errorf("lindi: document refers to what the container does not hold: %w", err)
		}
	}
	return rec.names, nil
}

// recorder is Members that notes the names asked for.
type recorder struct {
	m     store.Members
	mu    sync.Mutex
	names map[string]bool
}

func (r *recorder) Member(ctx context.Context, name string) (store.Value, error) {
	r.mu.Lock()
	r.names[name] = true
	r.mu.Unlock()
	return r.m.Member(ctx, name)
}

// rangeKeys returns, sorted, the keys of doc's refs that are range refs
// ([url, …]): the ones that may name members; gen reports that doc also
// has kerchunk "gen" refs.
func rangeKeys(doc []byte) (keys []string, gen bool, err error) {
	var clean []byte // doc with Python's NaN tokens spelt as numbers
	for i, tok := range zarrmeta.NonFinite(doc) {
		if clean == nil {
			clean = bytes.Clone(doc)
		}
		copy(clean[i:], sameLength[tok])
	}
	if clean == nil {
		clean = doc
	}
	var top struct {
		Refs map[string]json.RawMessage `json:"refs"`
		Gen  json.RawMessage            `json:"gen"`
	}
	if err := json.Unmarshal(clean, &top); err != nil {
		return nil, false, err
	}
	for k, v := range top.Refs {
		if v = bytes.TrimSpace(v); len(v) > 0 && v[0] == '[' {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, top.Gen != nil, nil
}

// sameLength spells a number as long as each non-finite token.
var sameLength = map[string]string{"NaN": "0e0", "Infinity": "0.000000", "-Infinity": "-0.000000"}
