package lindibeam

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/index"
)

func init() {
	beam.RegisterType(reflect.TypeFor[Asset]())
	beam.RegisterType(reflect.TypeFor[Failure]())
	register.DoFn4x0[context.Context, string, func(string, Asset), func(Failure)](&expandFn{})
	beam.RegisterType(reflect.TypeFor[Shard]())
	register.Emitter2[string, Asset]()
	register.Emitter1[Failure]()
	register.DoFn4x0[string, func(*Asset) bool, func(Asset), func(Failure)](&uniqueFn{})
	register.Iter1[Asset]()
	register.Emitter1[Asset]()
}

// Asset is one file of a job: where it opens and the name its outputs are
// named after.
type Asset struct {
	// Source opens the asset: a local path, an http(s) or s3 URL, or a
	// DANDI asset's address (dandi://INSTANCE/DANDISET@VERSION/PATH).
	Source string
	// Name is unique among the assets of a job (Assets refuses two sources
	// of one name): for an asset listed in a dandiset
	// "DANDISET/VERSION/PATH" ("000409/draft/sub-01/sub-01_ecephys.nwb"), for
	// a DANDI asset known by its ID alone "assets/ID", for any other source
	// the last element of its path. It is a relative slash-separated path
	// that stays inside an output directory.
	Name string
}

// Failure is a source or asset that failed, and why.
type Failure struct {
	// Source is the address given, or the asset's Source.
	Source string
	Error  string
}

// Assets expands addresses into the assets they stand for, on the workers:
// a dandiset or a folder of one (dandi://dandi/000409,
// dandi://dandi/000409@draft/sub-01/, the archive's API and web URLs) into
// its HDF5 NWB assets (*.nwb; Zarr stores are left out), listed page by page
// with the retries every request has; any other address (a local path, an
// http(s) or s3 URL, a DANDI asset) into itself. An address that cannot be
// listed, an asset whose path would leave the output directory, and every
// source of a name two distinct sources share (see Asset.Name) go to failed;
// a source given twice is one asset.
func Assets(s beam.Scope, addresses ...string) (assets, failed beam.PCollection) {
	s = s.Scope("lindi.Assets")
	return ExpandAssets(s, beam.CreateList(s, addresses))
}

// ExpandAssets is Assets over a PCollection of addresses (strings).
func ExpandAssets(s beam.Scope, addresses beam.PCollection) (assets, failed beam.PCollection) {
	return ExpandShard(s, Shard{}, addresses)
}

// Shard is share I of N of the DANDI assets of a job, split as
// dandi.WithShard and lindi ls --shard split them (by a hash of the asset's
// path, whichever dandiset, folder or asset address names it), so that N
// jobs over one list of addresses, with shards 0/N to N-1/N, take each
// asset once. The zero value, like 0/1, is the whole.
type Shard struct {
	I, N int
}

// check says whether sh is a shard.
func (sh Shard) check() error {
	if sh == (Shard{}) || sh.N >= 1 && sh.I >= 0 && sh.I < sh.N {
		return nil
	}
	return fmt.Errorf("lindibeam: shard %d/%d: want 0 ≤ I < N", sh.I, sh.N)
}

// ExpandShard is ExpandAssets keeping only the DANDI assets of shard sh:
// those it lists in a dandiset or folder and those named alone that fall
// in sh. Any other source (a local path, an http(s) or s3 URL) goes to
// failed, named, as only DANDI assets are split into shards. ExpandShard
// panics, as Beam's transforms do, on a shard out of range.
func ExpandShard(s beam.Scope, sh Shard, addresses beam.PCollection) (assets, failed beam.PCollection) {
	if err := sh.check(); err != nil {
		panic(err)
	}
	named, unlisted := beam.ParDo2(s, &expandFn{Shard: sh}, addresses)
	assets, clashed := beam.ParDo2(s, &uniqueFn{}, beam.GroupByKey(s, named))
	return assets, beam.Flatten(s, unlisted, clashed)
}

// expandFn turns an address into its assets, keyed by their names.
type expandFn struct {
	Shard Shard
}

func (f *expandFn) ProcessElement(ctx context.Context, src string, emit func(string, Asset), failed func(Failure)) {
	a, err := dandi.ParseAddress(src)
	split := f.Shard.N > 1
	if split && err != nil {
		failed(Failure{Source: src, Error: fmt.Sprintf("lindibeam: shard %d/%d: only DANDI assets are split into shards: %v", f.Shard.I, f.Shard.N, err)})
		return
	}
	if err != nil || !a.IsFolder() {
		if split && !f.inShard(ctx, src, failed) {
			return
		}
		name := assetName(src, a, err == nil)
		emit(name, Asset{Source: src, Name: name})
		return
	}
	opts := []dandi.Option{dandi.WithGlob("*.nwb")}
	if split {
		opts = append(opts, dandi.WithShard(f.Shard.I, f.Shard.N))
	}
	for asset, err := range dandi.Assets(ctx, src, opts...) {
		if err != nil {
			failed(Failure{Source: src, Error: err.Error()})
			return
		}
		if asset.IsZarr() { // an NWB Zarr store is not an HDF5 file
			continue
		}
		name := path.Join(asset.Dandiset, asset.Version, asset.Path)
		if !filepath.IsLocal(filepath.FromSlash(asset.Path)) || !strings.HasPrefix(name, asset.Dandiset+"/") {
			// an archive's answer is not trusted to name our files
			failed(Failure{Source: asset.Address(), Error: fmt.Sprintf("lindibeam: asset path %q leaves the output directory", asset.Path)})
			continue
		}
		emit(name, Asset{Source: asset.Address(), Name: name})
	}
}

// inShard reports whether the DANDI asset src falls in the shard (its path
// looked up when src names it by its ID); a lookup that fails goes to
// failed.
func (f *expandFn) inShard(ctx context.Context, src string, failed func(Failure)) bool {
	in := false
	for _, err := range dandi.Assets(ctx, src, dandi.WithShard(f.Shard.I, f.Shard.N)) {
		if err != nil {
			failed(Failure{Source: src, Error: err.Error()})
			return false
		}
		in = true
	}
	return in
}

// assetName is the name of the asset at src, a DANDI address a when dandi is
// set.
func assetName(src string, a dandi.Address, dandi bool) string {
	switch {
	case dandi && a.Dandiset != "" && a.Path != "":
		if n := path.Join(a.Dandiset, a.Version, a.Path); filepath.IsLocal(filepath.FromSlash(n)) {
			return n
		}
	case dandi && a.AssetID != "":
		return "assets/" + a.AssetID
	}
	return strings.TrimSuffix(filepath.Base(index.DefaultOutput(src)), ".lindi.json")
}

// uniqueFn lets through a name's asset when one source has it, and refuses
// every source of a name distinct sources share.
type uniqueFn struct{}

func (f *uniqueFn) ProcessElement(name string, assets func(*Asset) bool, emit func(Asset), failed func(Failure)) {
	var srcs []string
	var a Asset
	for assets(&a) {
		srcs = append(srcs, a.Source)
	}
	slices.Sort(srcs)
	srcs = slices.Compact(srcs)
	if len(srcs) == 1 {
		emit(Asset{Source: srcs[0], Name: name})
		return
	}
	for _, src := range srcs {
		failed(Failure{Source: src, Error: fmt.Sprintf("lindibeam: %s share the output name %q: give them apart", strings.Join(srcs, " and "), name)})
	}
}
