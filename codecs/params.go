package codecs

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// params are the members of a codec configuration, read for encoding.
// Decoders that need no parameter read configurations loosely, so a member
// an encoder cannot use is reported when encoding, not when building.
type params struct {
	id      string
	members map[string]json.RawMessage
}

// parseParams reads the members of config, which must be a JSON object.
func parseParams(id string, config []byte) (params, error) {
	p := params{id: id}
	if isNull(config) {
		return p, nil
	}
	if err := parseConfig(id, config, &p.members); err != nil {
		return p, err
	}
	return p, nil
}

// int reads integer member key, def when absent or null.
func (p params) int(key string, def int) (int, error) {
	raw, ok := p.members[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return def, nil
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(raw)))
	if err != nil {
		return def, errConfig(p.id, "%s %s is not an integer", key, raw)
	}
	return n, nil
}

// string reads string member key, def when absent or null.
func (p params) string(key, def string) (string, error) {
	raw, ok := p.members[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return def, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return def, errConfig(p.id, "%s %s is not a string", key, raw)
	}
	return s, nil
}

// bool reads boolean member key, def when absent or null.
func (p params) bool(key string, def bool) (bool, error) {
	raw, ok := p.members[key]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		return def, errConfig(p.id, "%s %s is not a boolean", key, raw)
	}
	return b, nil
}

// configJSON renders a configuration compactly with sorted keys (what
// encoding/json does for maps), without HTML escapes, so dtypes such as
// "<i2" read as written.
func configJSON(m map[string]any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		// Unreachable: only numbers, strings, bools, nil and slices and
		// maps of them reach here.
		return nil
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// compactConfig is config with sorted keys and no spaces, for codecs whose
// configuration has no minimal form to give (one an encoder refused).
func compactConfig(config []byte) json.RawMessage {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(config))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return append(json.RawMessage(nil), config...)
	}
	return configJSON(m)
}
