package codecs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// Registry maps numcodecs codec ids to constructors, each registered for one
// class: Codec (fixed-size data) or ObjectCodec (object arrays). An id may
// have a constructor of each class when its configuration decides the class,
// as categorize's dtype does. The zero value is an empty registry ready for
// use; a Registry is safe for concurrent use.
type Registry struct {
	mu       sync.RWMutex
	readOnly bool // set before Builtin publishes the registry, never after
	codecs   map[string]func(config []byte) (Codec, error)
	objects  map[string]func(config []byte) (ObjectCodec, error)
}

// ErrReadOnly is returned by RegisterCodec and RegisterObjectCodec on the
// registry returned by Builtin.
var ErrReadOnly = errors.New("codecs: the built-in registry is read-only; extend one from NewRegistry")

// ErrWrongClass is wrapped by errors for a configuration of the other class
// than the one asked for: NewCodec of an object codec, NewObjectCodec of a
// byte codec. A constructor registered for an id that has both classes
// returns an error wrapping it for a configuration of the other class (a
// categorize configuration with a text dtype, asked for an ObjectCodec), so
// that Pipeline builds the other one. ErrWrongClass wraps ErrConfig.
var ErrWrongClass = fmt.Errorf("%w: configuration of the other codec class", ErrConfig)

// RegisterCodec makes build the Codec constructor for id, replacing any
// previous one; an ObjectCodec constructor for id is kept. build receives the
// whole JSON configuration object, "id" included. RegisterCodec fails if id
// is empty, build is nil, or r is the read-only Builtin registry
// (ErrReadOnly).
func (r *Registry) RegisterCodec(id string, build func(config []byte) (Codec, error)) error {
	if build == nil {
		return fmt.Errorf("codecs: RegisterCodec(%q) with a nil constructor", id)
	}
	return r.register("RegisterCodec", id, func() {
		if r.codecs == nil {
			r.codecs = make(map[string]func([]byte) (Codec, error))
		}
		r.codecs[id] = build
	})
}

// RegisterObjectCodec makes build the ObjectCodec constructor for id,
// replacing any previous one; a Codec constructor for id is kept. It fails
// as RegisterCodec does.
func (r *Registry) RegisterObjectCodec(id string, build func(config []byte) (ObjectCodec, error)) error {
	if build == nil {
		return fmt.Errorf("codecs: RegisterObjectCodec(%q) with a nil constructor", id)
	}
	return r.register("RegisterObjectCodec", id, func() {
		if r.objects == nil {
			r.objects = make(map[string]func([]byte) (ObjectCodec, error))
		}
		r.objects[id] = build
	})
}

// register checks id and r's writability, then calls add under the lock.
func (r *Registry) register(op, id string, add func()) error {
	if id == "" {
		return fmt.Errorf("codecs: %s with an empty id", op)
	}
	if r.readOnly {
		return ErrReadOnly
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	add()
	return nil
}

// IDs returns the registered codec ids of both classes, sorted, each once.
func (r *Registry) IDs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	ids := make([]string, 0, len(r.codecs)+len(r.objects))
	for id := range r.codecs {
		ids = append(ids, id)
	}
	for id := range r.objects {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// NewCodec builds the Codec described by config, a JSON object with an "id"
// member as found in .zarray. An id that is not registered is an error
// wrapping ErrUnknownCodec that names the id; an id registered only as an
// object codec wraps ErrWrongClass; a malformed configuration wraps
// ErrConfig.
func (r *Registry) NewCodec(config []byte) (Codec, error) {
	id, err := configID(config)
	if err != nil {
		return nil, err
	}
	r.mu.RLock()
	build, other := r.codecs[id], r.objects[id]
	r.mu.RUnlock()
	if build == nil {
		return nil, missing(id, other != nil, "an object codec")
	}
	c, err := build(config)
	if err == nil && c == nil {
		err = errConfig(id, "constructor returned no codec")
	}
	return c, err
}

// NewObjectCodec builds the ObjectCodec described by config. It fails as
// NewCodec does; an id registered only as a byte codec wraps ErrWrongClass.
func (r *Registry) NewObjectCodec(config []byte) (ObjectCodec, error) {
	id, err := configID(config)
	if err != nil {
		return nil, err
	}
	r.mu.RLock()
	build, other := r.objects[id], r.codecs[id]
	r.mu.RUnlock()
	if build == nil {
		return nil, missing(id, other != nil, "a byte codec")
	}
	c, err := build(config)
	if err == nil && c == nil {
		err = errConfig(id, "constructor returned no codec")
	}
	return c, err
}

// missing reports an id without a constructor of the class asked for:
// unknown, or registered only as the other class (what).
func missing(id string, otherClass bool, what string) error {
	if !otherClass {
		return fmt.Errorf("%w %q", ErrUnknownCodec, id)
	}
	return &codecError{id: id, detail: "is " + what, kind: ErrWrongClass}
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
