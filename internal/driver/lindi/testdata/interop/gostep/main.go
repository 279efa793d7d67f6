// Command gostep is the Go side of interop.py: it creates and amends LINDI
// containers through the writable containers (lindi.Containers), and
// dumps what the h5 package reads from them. It never runs in go test.
//
//	gostep create PATH        a new container, committed three times
//	gostep amend PATH NAME    two more commits: datasets NAME_a and NAME_b
//	gostep dump PATH          every dataset, as JSON: path → {shape, data}
//	gostep sizes PATH         a tar's lindi.json and index sizes, as JSON
//	gostep compact SRC DST    lindi.Compact
//	gostep repair PATH        OpenSink and Close: cut off a killed writer's tail
package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/driver/lindi"
)

var ctx = context.Background()

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gostep:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 2 {
		return fmt.Errorf("usage: gostep create|amend|dump|sizes PATH [NAME]")
	}
	path := args[1]
	switch args[0] {
	case "create":
		return create(path)
	case "amend":
		if len(args) != 3 {
			return fmt.Errorf("amend needs a NAME")
		}
		return amend(path, args[2])
	case "dump":
		return dump(path)
	case "sizes":
		return sizes(path)
	case "repair":
		s, _, err := driver.ContainerFor(lindi.Containers(), path).OpenSink(ctx, path)
		if err != nil {
			return err
		}
		return s.Close()
	case "compact":
		if len(args) != 3 {
			return fmt.Errorf("compact needs a DST")
		}
		return lindi.Compact(ctx, path, args[2])
	}
	return fmt.Errorf("unknown step %q", args[0])
}

// writer is an open container and its document's refs.
type writer struct {
	s    driver.Sink
	top  map[string]json.RawMessage
	refs map[string]json.RawMessage
}

func open(path string, create bool) (*writer, error) {
	c := driver.ContainerFor(lindi.Containers(), path)
	if c == nil {
		return nil, fmt.Errorf("no container claims %s", path)
	}
	w := &writer{}
	var doc []byte
	var err error
	if create {
		if w.s, err = c.Create(ctx, path, false); err != nil {
			return nil, err
		}
		doc = []byte(driver.EmptyDocument)
	} else if w.s, doc, err = c.OpenSink(ctx, path); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(doc, &w.top); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(w.top["refs"], &w.refs); err != nil {
		return nil, err
	}
	return w, nil
}

// dataset adds the int32 dataset name of n values seed*100000+k in chunks
// of 400 (1600 bytes: blobs), with an attribute of pad bytes to grow the
// document.
func (w *writer) dataset(name string, n, seed, pad int) error {
	meta := fmt.Sprintf(`{"chunks": [400], "compressor": null, "dtype": "<i4", "fill_value": 0, "filters": null, "order": "C", "shape": [%d], "zarr_format": 2}`, n)
	w.refs[name+"/.zarray"] = json.RawMessage(meta)
	w.refs[name+"/.zattrs"] = json.RawMessage(fmt.Sprintf(`{"note": %q}`, strings.Repeat("n", pad)))
	for c := 0; c*400 < n; c++ {
		b := make([]byte, 1600)
		for k := range 400 {
			if i := c*400 + k; i < n {
				binary.LittleEndian.PutUint32(b[4*k:], uint32(seed*100000+i))
			}
		}
		ref, err := w.s.Blob(ctx, fmt.Sprintf("%s/%d", name, c), b)
		if err != nil {
			return err
		}
		w.refs[fmt.Sprintf("%s/%d", name, c)] = ref
	}
	// and a small one, inline
	small := make([]byte, 20)
	for k := range 10 {
		binary.LittleEndian.PutUint16(small[2*k:], uint16(seed*10+k))
	}
	w.refs[name+"_small/.zarray"] = json.RawMessage(`{"chunks": [10], "compressor": null, "dtype": "<i2", "fill_value": 0, "filters": null, "order": "C", "shape": [10], "zarr_format": 2}`)
	w.refs[name+"_small/0"] = driver.InlineRef(small)
	return nil
}

func (w *writer) commit() error {
	refs, err := json.Marshal(w.refs)
	if err != nil {
		return err
	}
	w.top["refs"] = refs
	doc, err := json.MarshalIndent(w.top, "", "  ")
	if err != nil {
		return err
	}
	return w.s.Commit(ctx, doc)
}

func create(path string) error {
	w, err := open(path, true)
	if err != nil {
		return err
	}
	defer w.s.Close()
	for i, name := range []string{"go1", "go2", "go3"} {
		if err := w.dataset(name, 1000, i+1, 100); err != nil {
			return err
		}
		if i == 2 { // rewrite go1's chunks: blobs go1/0.v2, …
			if err := w.dataset("go1", 1000, 9, 100); err != nil {
				return err
			}
		}
		if err := w.commit(); err != nil {
			return err
		}
	}
	return w.s.Close()
}

func amend(path, name string) error {
	w, err := open(path, false)
	if err != nil {
		return err
	}
	defer w.s.Close()
	for i, suffix := range []string{"_a", "_b"} {
		if err := w.dataset(name+suffix, 40000, 50+i, 6000); err != nil {
			return err
		}
		if err := w.commit(); err != nil {
			return err
		}
	}
	return w.s.Close()
}

func dump(path string) error {
	f, err := h5.Open(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	out := map[string]any{}
	err = f.Root().Walk(ctx, func(p string, _ h5.Link, obj h5.Object, err error) error {
		if err != nil {
			return err
		}
		d, ok := obj.(*h5.Dataset)
		if !ok {
			return nil
		}
		a, err := h5.Read[float64](ctx, d, nil)
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		out["/"+strings.TrimPrefix(p, "/")] = map[string]any{"shape": d.Shape(), "data": a.Data}
		return nil
	})
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}

func sizes(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	entry := make([]byte, 1024)
	if _, err := f.ReadAt(entry, 512); err != nil {
		return err
	}
	var e struct{ Index struct{ D, S int64 } }
	if err := json.Unmarshal(entry, &e); err != nil {
		return err
	}
	idx := make([]byte, e.Index.S)
	if _, err := f.ReadAt(idx, e.Index.D); err != nil {
		return err
	}
	var i struct {
		Files []struct {
			N    string
			D, S int64
		}
	}
	if err := json.Unmarshal(idx, &i); err != nil {
		return err
	}
	out := map[string]int64{"index": e.Index.S, "files": int64(len(i.Files))}
	for _, r := range i.Files {
		if r.N == "lindi.json" {
			out["lindi.json"] = r.S
		}
	}
	return json.NewEncoder(os.Stdout).Encode(out)
}
