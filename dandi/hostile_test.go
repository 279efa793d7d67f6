package dandi_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
	"github.com/lindigo/lindi/io/source"
)

// firstErr ranges over a listing and returns its first error.
func firstErr(seq func(func(dandi.Asset, error) bool)) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

// TestListingLoops: a listing whose next links loop, or which goes on past
// the count it declares, fails with one line (ErrResponse) instead of
// asking for pages forever; so do the versions of a dandiset.
func TestListingLoops(t *testing.T) {
	s := archive(t)
	ctx := context.Background()
	for _, tc := range []struct {
		fault danditest.Fault
		want  string
	}{
		{danditest.LoopSelf, "loops"},
		{danditest.LoopPair, "more than the 8 results"},
		{danditest.Overcount, "more than the 8 results"},
	} {
		s.SetFault(tc.fault, 0)
		dandi.ClearCache()
		before := len(s.Hits("/dandisets/000409/versions/draft/assets/"))
		err := firstErr(dandi.Assets(ctx, inst+"000409"))
		asked := len(s.Hits("/dandisets/000409/versions/draft/assets/")) - before
		if !errors.Is(err, dandi.ErrResponse) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("fault %d: %v, want one line saying %q", tc.fault, err, tc.want)
		}
		if asked > 4 {
			t.Errorf("fault %d: %d pages asked for a listing of 3", tc.fault, asked)
		}
	}
	s.SetFault(danditest.LoopSelf, 0)
	dandi.ClearCache()
	if _, err := dandi.Versions(ctx, inst+"000409"); !errors.Is(err, dandi.ErrResponse) || !strings.Contains(err.Error(), "loops") {
		t.Errorf("looping versions: %v", err)
	}
}

// TestTimeouts: an API that never answers, or drips its answer a byte at a
// time, fails the listing with source.ErrTimeout after the timeout and its
// retries instead of hanging.
func TestTimeouts(t *testing.T) {
	s := archive(t)
	ctx := context.Background()
	for _, f := range []danditest.Fault{danditest.Silent, danditest.Drip} {
		s.SetFault(f, 10*time.Millisecond)
		dandi.ClearCache()
		err := firstErr(dandi.Assets(ctx, inst+"000409", dandi.WithTimeout(50*time.Millisecond)))
		if !errors.Is(err, source.ErrTimeout) || !strings.Contains(err.Error(), "gave up after") {
			t.Errorf("fault %d: %v, want a timeout after retries", f, err)
		}
	}
	s.SetFault(danditest.Silent, 0)
	t.Setenv(source.TimeoutEnv, "40ms")
	if _, err := dandi.Versions(ctx, inst+"000409"); !errors.Is(err, source.ErrTimeout) {
		t.Errorf("%s=40ms: %v", source.TimeoutEnv, err)
	}
	t.Setenv(source.TimeoutEnv, "soon")
	if _, err := dandi.Versions(ctx, inst+"000409"); err == nil || !strings.Contains(err.Error(), source.TimeoutEnv) {
		t.Errorf("%s=soon: %v, want an error naming it", source.TimeoutEnv, err)
	}
}

func TestVersions(t *testing.T) {
	s := archive(t)
	ctx := context.Background()
	vs, err := dandi.Versions(ctx, inst+"000409@0.230101.1200/sub-01/")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range vs {
		ids = append(ids, v.Version)
	}
	if !slices.Equal(ids, []string{"draft", "0.230101.1200"}) {
		t.Fatalf("versions %q", ids)
	}
	pub := vs[1]
	if !pub.Created.Equal(time.Date(2023, 1, 1, 12, 0, 0, 0, time.UTC)) || pub.Status != "Published" || pub.AssetCount != 1 || pub.Size != 1000 {
		t.Errorf("published version %+v", pub)
	}
	if !vs[0].Created.Before(pub.Created) || vs[0].AssetCount != 8 || vs[0].Name != "Dandiset 000409" {
		t.Errorf("draft %+v", vs[0])
	}
	if _, err := dandi.Versions(ctx, inst+"000999"); !errors.Is(err, dandi.ErrNotFound) || !strings.Contains(err.Error(), "no dandiset 000999") {
		t.Errorf("missing dandiset: %v", err)
	}
	if _, err := dandi.Versions(ctx, inst+"000123"); !errors.Is(err, dandi.ErrUnauthorized) {
		t.Errorf("embargoed dandiset without the key: %v", err)
	}
	t.Setenv(dandi.KeyEnv(danditest.Instance), danditest.Key)
	if vs, err := dandi.Versions(ctx, inst+"000123"); err != nil || len(vs) != 1 {
		t.Errorf("embargoed dandiset with the key: %v, %v", vs, err)
	}
	if len(s.Hits("/dandisets/000409/versions/?")) != 1 {
		t.Errorf("versions asked %q", s.Hits("/dandisets/000409/versions/?"))
	}
}

// TestShard: the shards of a listing are disjoint and make up the whole,
// in its order.
func TestShard(t *testing.T) {
	archive(t)
	all := paths(t, inst+"000409")
	var union []string
	for i := range 3 {
		union = append(union, paths(t, inst+"000409", dandi.WithShard(i, 3))...)
	}
	slices.Sort(union)
	if !slices.Equal(union, all) {
		t.Errorf("shards %q, want %q", union, all)
	}
	if got := paths(t, inst+"000409", dandi.WithShard(0, 1)); !slices.Equal(got, all) {
		t.Errorf("shard 0/1 %q", got)
	}
	sizes := 0
	for i := range 8 {
		if n := len(paths(t, inst+"000409", dandi.WithShard(i, 8))); n > 0 {
			sizes++
		}
	}
	if sizes < 3 {
		t.Errorf("8 assets fall in %d of 8 shards", sizes)
	}
	for _, bad := range [][2]int{{0, 0}, {-1, 2}, {2, 2}} {
		if err := firstErr(dandi.Assets(context.Background(), inst+"000409", dandi.WithShard(bad[0], bad[1]))); err == nil {
			t.Errorf("WithShard(%d, %d) accepted", bad[0], bad[1])
		}
	}
	// One asset named outside its shard is not yielded, and not an error.
	other := 1
	if slices.Contains(paths(t, inst+"000409", dandi.WithShard(1, 2)), "README.md") {
		other = 0
	}
	if got := paths(t, inst+"000409/README.md", dandi.WithShard(other, 2)); len(got) != 0 {
		t.Errorf("README.md in shards 0 and 1 of 2: %q", got)
	}
	if got := paths(t, inst+"000409/README.md", dandi.WithShard(1-other, 2)); !slices.Equal(got, []string{"README.md"}) {
		t.Errorf("README.md in its shard: %q", got)
	}
}
