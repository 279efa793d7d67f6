package index

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Config is the JSON form of the options a worker of a distributed index
// receives (a Beam transform, a job array's task): the zero value is the
// defaults, and Options turns it into the Options of Build and WriteFile.
//
//	{"all_chunks": false, "chunk_threshold": 1000, "concurrency": 128, "relative_refs": false, "tool": "lindi-beam"}
//
// Every member may be left out. Decoding (UnmarshalJSON) refuses unknown
// members and invalid values, so that a typo fails the job at its start
// rather than index with the defaults.
type Config struct {
	// AllChunks is AllChunks: list every chunk of every dataset.
	AllChunks bool `json:"all_chunks,omitempty"`
	// ChunkThreshold is WithChunkThreshold; 0 for DefaultChunkThreshold.
	ChunkThreshold int `json:"chunk_threshold,omitempty"`
	// Concurrency is WithConcurrency; 0 for the default.
	Concurrency int `json:"concurrency,omitempty"`
	// RelativeRefs is RelativeRefs.
	RelativeRefs bool `json:"relative_refs,omitempty"`
	// Tool is WithTool; "" for "lindi-go".
	Tool string `json:"tool,omitempty"`
}

// Options returns the options c stands for, or an error naming the first
// invalid value (a negative threshold or concurrency, a threshold given
// with AllChunks).
func (c Config) Options() ([]Option, error) {
	var opts []Option
	switch {
	case c.AllChunks && c.ChunkThreshold != 0:
		return nil, fmt.Errorf("index: config: all_chunks with chunk_threshold %d: choose one", c.ChunkThreshold)
	case c.AllChunks:
		opts = append(opts, AllChunks())
	case c.ChunkThreshold != 0:
		opts = append(opts, WithChunkThreshold(c.ChunkThreshold))
	}
	if c.Concurrency != 0 {
		opts = append(opts, WithConcurrency(c.Concurrency))
	}
	if c.RelativeRefs {
		opts = append(opts, RelativeRefs())
	}
	if c.Tool != "" {
		opts = append(opts, WithTool(c.Tool))
	}
	if _, err := newOptions(opts); err != nil {
		return nil, fmt.Errorf("index: config: %w", err)
	}
	return opts, nil
}

// UnmarshalJSON decodes a Config, refusing unknown members, trailing data
// and values Options refuses.
func (c *Config) UnmarshalJSON(b []byte) error {
	type plain Config // without this method
	var v plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("index: config: %w", err)
	}
	if dec.More() {
		return fmt.Errorf("index: config: data after the object")
	}
	if _, err := Config(v).Options(); err != nil {
		return err
	}
	*c = Config(v)
	return nil
}
