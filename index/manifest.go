package index

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ManifestEntry is one line of the manifest of an indexing job (JSON
// Lines), as `lindi index --manifest` and lindi-beam write it: the source,
// the output written for it, and the error that stopped it (null on
// success).
type ManifestEntry struct {
	Source string  `json:"source"`
	Output string  `json:"output"`
	Error  *string `json:"error"`
}

// WriteManifest writes entries to the file name, one JSON line each in the
// order given, atomically: through a temporary file beside name renamed
// into place, so a reader never sees half a manifest.
func WriteManifest(name string, entries []ManifestEntry) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("index: manifest %s: %w", name, err)
		}
	}
	return writeAtomic(name, buf.Bytes())
}
