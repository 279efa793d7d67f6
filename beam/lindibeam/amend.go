package lindibeam

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

// Where Amend puts the statistics.
const (
	StatsModule = "statistics"
	StatsTable  = "channel_stats"
)

// Amend writes st into out, a new LINDI file amending the NWB file src (as
// nwb.Amend does), as the DynamicTable processing/statistics/channel_stats:
// columns count, mean, std, min and max, a row per column of st. The file
// is built under a temporary name and put in place when complete (renamed
// beside a local out, uploaded whole to a gs://, s3:// or memfs:// URL; a
// .lindi.d only locally), readable as os.Create makes files (0666 minus
// the umask), so that a reader (or a retried worker) sees the whole
// amendment or the previous one.
func Amend(ctx context.Context, src, out string, st Summary, opts ...h5.Option) error {
	ext := filepath.Ext(out) // .tar or .d or .json: keep the container's kind
	if !strings.HasSuffix(out, ".lindi"+ext) || !isLocal(out) && ext == ".d" {
		return fmt.Errorf("lindibeam: amend %s: want a .lindi.tar, .lindi.d (local) or .lindi.json", out)
	}
	stage := filepath.Dir(out)
	if !isLocal(out) {
		stage = ""
	}
	tmp, err := os.MkdirTemp(stage, "."+filepath.Base(out)+".*")
	if err != nil {
		return fmt.Errorf("lindibeam: amend %s: %w", out, err)
	}
	defer os.RemoveAll(tmp)
	staged := filepath.Join(tmp, filepath.Base(out))
	a, err := nwb.Amend(ctx, src, staged, opts...)
	if err != nil {
		return err
	}
	if err := addStats(ctx, a, st); err != nil {
		a.Discard()
		return err
	}
	if err := a.Close(); err != nil {
		return err
	}
	if !isLocal(out) {
		b, err := os.ReadFile(staged)
		if err != nil {
			return err
		}
		return WriteOutput(ctx, out, b)
	}
	if ext == ".d" { // the container was created 0666 (0777) less the umask
		os.RemoveAll(out) // a directory is not renamed over another
	}
	if err := os.Rename(staged, out); err != nil {
		return fmt.Errorf("lindibeam: amend %s: %w", out, err)
	}
	return nil
}

func addStats(ctx context.Context, a *nwb.Amendment, st Summary) error {
	m, err := a.Processing(ctx, StatsModule, "statistics of datasets, computed by lindi-beam")
	if err != nil {
		return err
	}
	floats := func(v []Number) []float64 {
		f := make([]float64, len(v))
		for i, x := range v {
			f[i] = x.Float()
		}
		return f
	}
	extreme := func(name, desc string, v []Number) nwb.ColumnSpec {
		ints := make([]int64, len(v))
		for i, x := range v {
			if x.Int == nil || !x.Int.IsInt64() {
				return nwb.NewColumn(name, desc, floats(v))
			}
			ints[i] = x.Int.Int64()
		}
		return nwb.NewColumn(name, desc, ints)
	}
	_, err = m.AddTable(ctx, StatsTable, nwb.TableSpec{
		Description: fmt.Sprintf("per-column statistics of %s (shape %v)", st.Dataset, st.Shape),
		Columns: []nwb.ColumnSpec{
			nwb.NewColumn("count", "number of elements", st.Count),
			nwb.NewColumn("mean", "mean", floats(st.Mean)),
			nwb.NewColumn("std", "population standard deviation (ddof 0)", floats(st.Std)),
			extreme("min", "minimum", st.Min),
			extreme("max", "maximum", st.Max),
		},
	})
	return err
}
