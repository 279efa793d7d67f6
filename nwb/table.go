package nwb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// Table is an hdmf DynamicTable (or a subtype: Units, TimeIntervals, the
// electrodes table, …): columns of equal length, one row per id.
type Table struct {
	f     *File
	g     *h5.Group
	ids   *h5.Dataset
	names []string
	cols  map[string]*Column
	n     int
}

// Table opens the DynamicTable at path. Its columns are those colnames lists,
// in that order (a table written without colnames gets its VectorData
// datasets in name order). It fails with ErrNotTable when the group has no
// id dataset, with ErrNoColumn when a listed column is missing, and with
// ErrIndex when a column's length is not the number of ids.
func (f *File) Table(ctx context.Context, path string) (*Table, error) {
	g, err := f.group(ctx, path, "table")
	if err != nil {
		return nil, err
	}
	t := &Table{f: f, g: g, cols: map[string]*Column{}}
	if t.ids, err = g.Dataset(ctx, "id"); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotTable, unprefixed{err})
	}
	if t.ids.NDim() != 1 {
		return nil, fmt.Errorf("%w: %s has shape %v, not 1-D", ErrNotTable, t.ids.Path(), t.ids.Shape())
	}
	t.n = t.ids.Shape()[0]
	if t.names, err = columnNames(ctx, g); err != nil {
		return nil, err
	}
	indexes := indexesByTarget(ctx, g)
	for _, name := range t.names {
		c, err := t.column(ctx, name, indexes)
		if err != nil {
			return nil, err
		}
		t.cols[name] = c
	}
	return t, nil
}

// columnNames reads colnames, or infers the columns of a table without it.
func columnNames(ctx context.Context, g *h5.Group) ([]string, error) {
	if g.Attrs().Has("colnames") {
		names, err := g.Attrs().Strings("colnames")
		if err != nil {
			return nil, fmt.Errorf("nwb: %s: %w", g.Path(), unprefixed{err})
		}
		return names, nil
	}
	var names []string
	for _, m := range g.Members() {
		d, err := g.Dataset(ctx, m)
		if err != nil || m == "id" || typeOf(d) == "VectorIndex" || strings.HasSuffix(m, "_index") {
			continue
		}
		names = append(names, m)
	}
	return names, nil
}

// indexesByTarget maps the path of each VectorIndex's target to the index.
func indexesByTarget(ctx context.Context, g *h5.Group) map[string]*h5.Dataset {
	out := map[string]*h5.Dataset{}
	for _, m := range g.Members() {
		d, err := g.Dataset(ctx, m)
		if err != nil {
			continue
		}
		if r, err := d.Attrs().Ref("target"); err == nil && (typeOf(d) == "VectorIndex" || strings.HasSuffix(m, "_index")) {
			out[r.Path] = d
		}
	}
	return out
}

// column finds a column's data and the chain of indexes above it: by the
// indexes' target attributes, or else by hdmf's names (<col>_index,
// <col>_index_index).
func (t *Table) column(ctx context.Context, name string, indexes map[string]*h5.Dataset) (*Column, error) {
	data, err := t.g.Dataset(ctx, name)
	if errors.Is(err, h5.ErrNotFound) {
		return nil, fmt.Errorf("%w: %s lists %q, which it does not have", ErrNoColumn, t.g.Path(), name)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrNoColumn, name, unprefixed{err}) // h5's error names the path
	}
	c := &Column{t: t, name: name, data: data}
	below, byName := data, name
	for len(c.index) < 8 {
		idx, ok := indexes[below.Path()]
		if !ok {
			idx, err = t.g.Dataset(ctx, byName+"_index")
			if err != nil {
				break
			}
			if r, err := idx.Attrs().Ref("target"); err == nil && r.Path != below.Path() {
				break // an index of something else that happens to share the name
			}
		}
		c.index = append(c.index, idx)
		below, byName = idx, byName+"_index"
	}
	if rows := c.top().Shape(); len(rows) == 0 || rows[0] != t.n {
		return nil, fmt.Errorf("%w: %s has shape %v for %d ids", ErrIndex, c.top().Path(), rows, t.n)
	}
	for _, idx := range c.index {
		if idx.NDim() != 1 {
			return nil, fmt.Errorf("%w: index %s has shape %v, not 1-D", ErrIndex, idx.Path(), idx.Shape())
		}
	}
	return c, nil
}

// Path is the table's absolute path.
func (t *Table) Path() string { return t.g.Path() }

// Type is the table's neurodata_type ("DynamicTable" when it has none).
func (t *Table) Type() string {
	if ty := typeOf(t.g); ty != "" {
		return ty
	}
	return "DynamicTable"
}

// Description is the table's description attribute.
func (t *Table) Description() string {
	s, _ := t.g.Attrs().String("description")
	return s
}

// Group is the table's group, for members this type does not cover.
func (t *Table) Group() *h5.Group { return t.g }

// Len is the number of rows.
func (t *Table) Len() int { return t.n }

// Columns returns the column names in colnames order (a copy).
func (t *Table) Columns() []string { return slices.Clone(t.names) }

// Column returns the column called name, or an error wrapping ErrNoColumn.
func (t *Table) Column(name string) (*Column, error) {
	c, ok := t.cols[name]
	if !ok {
		return nil, fmt.Errorf("%w: %q in %s (columns: %s)", ErrNoColumn, name, t.g.Path(), strings.Join(t.names, ", "))
	}
	return c, nil
}

// Has reports whether the table has a column called name.
func (t *Table) Has(name string) bool { _, ok := t.cols[name]; return ok }

// IDs reads the ids of rows [start, stop).
func (t *Table) IDs(ctx context.Context, start, stop int) ([]int64, error) {
	if err := t.checkRange(start, stop); err != nil {
		return nil, err
	}
	v, err := h5.Read[int64](ctx, t.ids, selection.Selection{selection.Slice(start, stop, 1)})
	if err != nil {
		return nil, err // h5's error names the id dataset
	}
	return v.Data, nil
}

func (t *Table) checkRange(start, stop int) error {
	if start < 0 || stop < start || stop > t.n {
		return fmt.Errorf("%w: rows [%d, %d) of %s, which has %d", ErrRange, start, stop, t.g.Path(), t.n)
	}
	return nil
}

// Row is one row of a table: its position, its id and a cell per column.
type Row struct {
	Index   int
	ID      int64
	Columns []string // the table's column names, shared by its rows
	// Cells holds a value per column, in Columns order, as Column.Cells gives it.
	Cells []any
}

// Get returns the cell of the column called name.
func (r Row) Get(name string) (any, bool) {
	i := slices.Index(r.Columns, name)
	if i < 0 {
		return nil, false
	}
	return r.Cells[i], true
}

// maxColumnReads bounds how many columns a block read reads at once; each
// read is itself parallel over its chunks.
const maxColumnReads = 8

// Rows reads rows [start, stop), reading the columns concurrently.
func (t *Table) Rows(ctx context.Context, start, stop int) ([]Row, error) {
	ids, err := t.IDs(ctx, start, stop)
	if err != nil {
		return nil, err
	}
	cols := make([][]any, len(t.names))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxColumnReads)
	for j, name := range t.names {
		g.Go(func() error {
			var err error
			cols[j], err = t.cols[name].Cells(gctx, start, stop)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	rows := make([]Row, stop-start)
	for i := range rows {
		rows[i] = Row{Index: start + i, ID: ids[i], Columns: t.names, Cells: make([]any, len(cols))}
		for j := range cols {
			rows[i].Cells[j] = cols[j][i]
		}
	}
	return rows, nil
}

// Row reads row i.
func (t *Table) Row(ctx context.Context, i int) (Row, error) {
	rows, err := t.Rows(ctx, i, i+1)
	if err != nil {
		return Row{}, err
	}
	return rows[0], nil
}

// Select reads the rows at the given positions (any order, repeats allowed),
// such as the rows a DynamicTableRegion points at. Nearby rows are read as
// one block.
func (t *Table) Select(ctx context.Context, rows []int) ([]Row, error) {
	for _, r := range rows {
		if r < 0 || r >= t.n {
			return nil, fmt.Errorf("%w: row %d of %s, which has %d", ErrRange, r, t.g.Path(), t.n)
		}
	}
	byIndex := map[int]Row{}
	for _, run := range runs(rows) {
		block, err := t.Rows(ctx, run[0], run[1])
		if err != nil {
			return nil, err
		}
		for _, r := range block {
			byIndex[r.Index] = r
		}
	}
	out := make([]Row, len(rows))
	for i, r := range rows {
		out[i] = byIndex[r]
	}
	return out, nil
}

// runGap is the largest gap between wanted rows that Select reads through
// rather than starting another block.
const runGap = 16

// runs covers the sorted distinct rows with [start, stop) blocks.
func runs(rows []int) [][2]int {
	s := slices.Clone(rows)
	slices.Sort(s)
	s = slices.Compact(s)
	var out [][2]int
	for _, r := range s {
		if n := len(out); n > 0 && r-out[n-1][1] <= runGap {
			out[n-1][1] = r + 1
			continue
		}
		out = append(out, [2]int{r, r + 1})
	}
	return out
}
