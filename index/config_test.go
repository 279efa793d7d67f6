package index

import (
	"encoding/json"
	"testing"
)

func TestConfigRoundTrip(t *testing.T) {
	for _, c := range []Config{
		{},
		{AllChunks: true, Concurrency: 4, RelativeRefs: true, Tool: "lindi-beam"},
		{ChunkThreshold: 20},
	} {
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if back != c {
			t.Errorf("%s decodes to %+v, want %+v", b, back, c)
		}
		opts, err := back.Options()
		if err != nil {
			t.Fatal(err)
		}
		o, err := newOptions(opts)
		if err != nil {
			t.Fatal(err)
		}
		want := &options{threshold: DefaultChunkThreshold, splitBytes: DefaultSplitBytes, concurrency: 128, tool: "lindi-go"}
		if c.AllChunks {
			want.threshold = 0
		}
		if c.ChunkThreshold != 0 {
			want.threshold = c.ChunkThreshold
		}
		if c.Concurrency != 0 {
			want.concurrency = c.Concurrency
		}
		if c.Tool != "" {
			want.tool = c.Tool
		}
		want.relative = c.RelativeRefs
		if o.threshold != want.threshold || o.concurrency != want.concurrency || o.tool != want.tool || o.relative != want.relative {
			t.Errorf("%s gives options %+v, want %+v", b, o, want)
		}
	}
}

func TestConfigRefused(t *testing.T) {
	for _, s := range []string{
		`{"all_chunk": true}`,
		`{"chunk_threshold": -1}`,
		`{"concurrency": -3}`,
		`{"all_chunks": true, "chunk_threshold": 5}`,
		`{"concurrency": "8"}`,
		`{} {}`,
		`[]`,
	} {
		var c Config
		err := json.Unmarshal([]byte(s), &c)
		if err == nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

// FuzzConfig: decoding never panics, and what decodes gives valid options
// and survives a round trip.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{`{}`, `{"all_chunks": true, "tool": "x"}`, `{"chunk_threshold": 3, "concurrency": 2, "relative_refs": true}`, `{"chunk_threshold": -1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c Config
		if json.Unmarshal(b, &c) != nil {
			return
		}
		if _, err := c.Options(); err != nil {
			t.Fatalf("%s decodes to %+v, whose options fail: %v", b, c, err)
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var back Config
		if err := json.Unmarshal(again, &back); err != nil || back != c {
			t.Fatalf("%s: round trip gives %+v, %v", again, back, err)
		}
	})
}
