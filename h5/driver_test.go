package h5_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/zarrmeta"
)

// memDriver is a container format of its own, added by a test (AddDriver): a
// name "mem:N" opens a file holding one dataset /x of N uint8 elements 0…N-1,
// in chunks of 4 located by a Locator of its own.
type memDriver struct{}

func (memDriver) Name() string { return "memory" }

func (memDriver) Sniff(_ context.Context, in *driver.Input) (driver.Match, error) {
	if strings.HasPrefix(in.Name, "mem:") {
		return driver.Yes, nil
	}
	return driver.No, nil
}

func (memDriver) Open(_ context.Context, _ *driver.Env, in *driver.Input) (*driver.Group, error) {
	n := len(strings.TrimPrefix(in.Name, "mem:"))
	dt, err := zarrmeta.ParseDType([]byte(`"|u1"`))
	if err != nil {
		return nil, err
	}
	arr := &engine.Chunked{Shape: []int{n}, Chunks: []int{4}, ItemSize: 1, Name: "/x", PadShort: true, Locator: counting{}}
	x := &driver.Dataset{Shape: []int{n}, DType: dt, Chunks: []int{4}, Storage: &driver.Fixed{Array: arr}}
	return &driver.Group{Attrs: map[string]any{"by": "memDriver"}, Links: []driver.Link{{Name: "x", Node: x}}}, nil
}

// counting gives chunk c the bytes 4c, 4c+1, 4c+2, 4c+3.
type counting struct{}

func (counting) Locate(_ context.Context, c []int) (engine.Chunk, error) {
	b := []byte{byte(4 * c[0]), byte(4*c[0] + 1), byte(4*c[0] + 2), byte(4*c[0] + 3)}
	return engine.Chunk{Data: b}, nil
}

func init() { h5.AddDriver(memDriver{}) }

func TestDriverSeam(t *testing.T) {
	f, err := h5.Open(ctx, "mem:abcdefghij")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Format() != "memory" {
		t.Errorf("Format = %q", f.Format())
	}
	if by, err := f.Root().Attrs().String("by"); err != nil || by != "memDriver" {
		t.Errorf("root attribute by = %q, %v", by, err)
	}
	d, err := f.Dataset(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[int32](ctx, d, parse(t, "2:9:3"))
	if err != nil || !slices.Equal(a.Data, []int32{2, 5, 8}) {
		t.Errorf("Read = %v, %v; want [2 5 8]", a, err)
	}
}
