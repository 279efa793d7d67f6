package lindibeam

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/util/reflectx"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

func init() {
	register.DoFn4x0[context.Context, Asset, func(beam.X), func(Failure)](&forEachFn{})
	register.Emitter1[beam.X]()
}

var (
	ctxType   = reflect.TypeFor[context.Context]()
	errType   = reflect.TypeFor[error]()
	nwbFileT  = reflect.TypeFor[*nwb.File]()
	h5FileT   = reflect.TypeFor[*h5.File]()
	assetType = reflect.TypeFor[Asset]()
)

// ForEach runs fn once on each asset of assets (a PCollection of Asset, as
// Assets gives) and returns the rows fn returns, all in one PCollection, and
// as a side output a Failure per asset that could not be opened or on which
// fn failed (returned an error or panicked). fn is a function of an opened
// NWB or HDF5 file:
//
//	func(ctx context.Context, a lindibeam.Asset, f *nwb.File) ([]R, error)
//	func(ctx context.Context, a lindibeam.Asset, f *h5.File) ([]R, error)
//
// R is a struct type; WriteCSV and WriteJSONL write such rows. As for any
// function and type a Beam pipeline sends to its workers, register them in
// an init function of the program: beam.RegisterFunction(fn) and
// beam.RegisterType(reflect.TypeFor[R]()).
//
// A worker opens the asset with the retries every read has (503s, bodies
// cut short, with backoff), through its process's HTTP client bounded to
// DefaultInFlight requests, calls fn once, and closes the file; the rows
// of a failed asset are dropped, so that an asset's rows are all there or
// none are. A bundle Beam retries runs fn again on its assets. ForEach
// panics, as beam.ParDo does, when fn does not have one of those types;
// TryForEach returns the error instead.
func ForEach(s beam.Scope, fn any, assets beam.PCollection) (rows, failed beam.PCollection) {
	rows, failed, err := TryForEach(s, fn, assets)
	if err != nil {
		panic(err)
	}
	return rows, failed
}

// TryForEach is ForEach returning an error for an fn of the wrong type.
func TryForEach(s beam.Scope, fn any, assets beam.PCollection) (rows, failed beam.PCollection, err error) {
	row, h5File, err := checkForEach(fn)
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	s = s.Scope("lindi.ForEach")
	out, err := beam.TryParDo(s, &forEachFn{Fn: reflectx.FunctionName(fn), Row: beam.EncodedType{T: row}, H5: h5File},
		beam.Reshuffle(s, assets), beam.TypeDefinition{Var: beam.XType, T: row})
	if err != nil {
		return beam.PCollection{}, beam.PCollection{}, err
	}
	return out[0], out[1], nil
}

// checkForEach checks fn's type and returns its rows' type and whether it
// takes an *h5.File.
func checkForEach(fn any) (row reflect.Type, h5File bool, err error) {
	t := reflect.TypeOf(fn)
	bad := func(why string) error {
		return fmt.Errorf("lindibeam: ForEach takes a func(context.Context, lindibeam.Asset, *nwb.File or *h5.File) ([]R, error), R a struct; %v: %s", t, why)
	}
	switch {
	case t == nil || t.Kind() != reflect.Func:
		return nil, false, bad("not a function")
	case t.NumIn() != 3 || t.In(0) != ctxType || t.In(1) != assetType:
		return nil, false, bad("its arguments")
	case t.In(2) != nwbFileT && t.In(2) != h5FileT:
		return nil, false, bad("its third argument")
	case t.NumOut() != 2 || t.Out(0).Kind() != reflect.Slice || t.Out(1) != errType:
		return nil, false, bad("its results")
	}
	row = t.Out(0).Elem()
	if _, err := rowColumns(row); err != nil {
		return nil, false, bad(err.Error())
	}
	return row, t.In(2) == h5FileT, nil
}

// forEachFn runs the user's function on an asset. The function travels by
// its name (Beam's encoding of a function would encode the types of its
// arguments, which an *nwb.File is not made to be), and is found on the
// worker by that name and its type.
type forEachFn struct {
	Fn  string
	Row beam.EncodedType
	// H5 is set when Fn takes an *h5.File.
	H5 bool

	fn reflect.Value
}

func (f *forEachFn) Setup() error {
	file := nwbFileT
	if f.H5 {
		file = h5FileT
	}
	t := reflect.FuncOf([]reflect.Type{ctxType, assetType, file}, []reflect.Type{reflect.SliceOf(f.Row.T), errType}, false)
	fn, err := runtime.ResolveFunction(f.Fn, t)
	if err != nil {
		return fmt.Errorf("lindibeam: ForEach's function %s (register it with beam.RegisterFunction): %w", f.Fn, err)
	}
	f.fn = reflect.ValueOf(fn)
	return nil
}

var (
	forEachDone   = beam.NewCounter("lindi", "foreach_done")
	forEachFailed = beam.NewCounter("lindi", "foreach_failed")
)

func (f *forEachFn) ProcessElement(ctx context.Context, a Asset, emit func(beam.X), failed func(Failure)) {
	rows, err := f.run(ctx, a)
	if err != nil {
		forEachFailed.Inc(ctx, 1)
		failed(Failure{Source: a.Source, Error: err.Error()})
		return
	}
	forEachDone.Inc(ctx, 1)
	for i := range rows.Len() {
		emit(rows.Index(i).Interface())
	}
}

// run opens a, calls the function on it and returns its rows; a panic of
// the function is its error.
func (f *forEachFn) run(ctx context.Context, a Asset) (rows reflect.Value, err error) {
	opts, err := openOptions(0, "") // the worker's LINDI_CONCURRENCY, else auto
	if err != nil {
		return reflect.Value{}, err
	}
	hf, err := h5.Open(ctx, a.Source, opts...)
	if err != nil {
		return reflect.Value{}, err
	}
	defer hf.Close()
	var arg any = hf
	if !f.H5 {
		if arg, err = nwb.New(hf); err != nil {
			return reflect.Value{}, err
		}
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("lindibeam: %s panicked: %v", f.Fn, p)
		}
	}()
	out := f.fn.Call([]reflect.Value{reflect.ValueOf(ctx), reflect.ValueOf(a), reflect.ValueOf(arg)})
	if e, _ := out[1].Interface().(error); e != nil {
		return reflect.Value{}, e
	}
	return out[0], nil
}
