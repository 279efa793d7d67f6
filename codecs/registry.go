package codecs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
)

// Registry maps numcodecs codec ids to constructors. The zero value is an
// empty registry ready for use; a Registry is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	builds map[string]func(config []byte) (any, error)
}

// Register makes build the constructor for codec id, replacing any previous
// one. build receives the whole JSON configuration object, "id" included, and
// must return a Codec or an ObjectCodec. Register panics if id is empty or
// build is nil, as both are programming errors.
func (r *Registry) Register(id string, build func(config []byte) (any, error)) {
	if id == "" || build == nil {
		panic("codecs: Register with an empty id or a nil constructor")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.builds == nil {
		r.builds = make(map[string]func([]byte) (any, error))
	}
	r.builds[id] = build
}

// IDs returns the registered codec ids, sorted.
func (r *Registry) IDs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := make([]string, 0, len(r.builds))
	for id := range r.builds {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// New builds the codec described by config, a JSON object with an "id" member
// as found in .zarray. It returns a Codec or an ObjectCodec. An id that is not
// registered is an error wrapping ErrUnknownCodec that names the id; a
// malformed configuration wraps ErrConfig.
func (r *Registry) New(config []byte) (any, error) {
	id, err := configID(config)
	if err != nil {
		return nil, err
	}
	r.mu.RLock()
	build := r.builds[id]
	r.mu.RUnlock()
	if build == nil {
		return nil, fmt.Errorf("%w %q", ErrUnknownCodec, id)
	}
	c, err := build(config)
	if err != nil {
		return nil, err
	}
	switch c.(type) {
	case Codec, ObjectCodec:
		return c, nil
	}
	return nil, errConfig(id, "constructor returned %T, neither a Codec nor an ObjectCodec", c)
}

// configID extracts the "id" member of a codec configuration.
func configID(config []byte) (string, error) {
	var head struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(config, &head); err != nil {
		return "", fmt.Errorf("%w: %s: %v", ErrConfig, abbreviate(config), err)
	}
	if head.ID == nil || *head.ID == "" {
		return "", fmt.Errorf("%w: no \"id\" in %s", ErrConfig, abbreviate(config))
	}
	return *head.ID, nil
}

// isNull reports whether a configuration is absent: empty or JSON null.
func isNull(config []byte) bool {
	t := bytes.TrimSpace(config)
	return len(t) == 0 || string(t) == "null"
}

// abbreviate shortens a configuration for an error message.
func abbreviate(config []byte) string {
	const max = 120
	if len(config) > max {
		return string(config[:max]) + "…"
	}
	return string(config)
}

// parseConfig unmarshals config into v, reporting failures as ErrConfig for id.
func parseConfig(id string, config []byte, v any) error {
	if err := json.Unmarshal(config, v); err != nil {
		return errConfig(id, "%s: %v", abbreviate(config), err)
	}
	return nil
}
