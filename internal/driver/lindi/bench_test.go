package lindi

import (
	"encoding/json"
	"fmt"
	"testing"
)

// BenchmarkCommit commits a document of 20,000 blob refs (about 1.3 MB)
// over 20,000 committed members: parsed twice to check its refs, padded,
// written with a new index, synced twice.
func BenchmarkCommit(b *testing.B) {
	s, _ := create(b, "x.lindi.tar")
	defer s.Close()
	refs := map[string]json.RawMessage{}
	for i := range 20000 {
		ref, err := s.Blob(ctx, fmt.Sprintf("acquisition/data/%d.0", i), make([]byte, 16))
		if err != nil {
			b.Fatal(err)
		}
		refs[fmt.Sprintf("acquisition/data/%d.0", i)] = ref
	}
	doc := docWith(refs)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		d := append(doc[:len(doc)-1:len(doc)-1], fmt.Sprintf(", \"generationMetadata\": %d}", i)...)
		if err := s.Commit(ctx, d); err != nil {
			b.Fatal(err)
		}
	}
}
