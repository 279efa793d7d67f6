package nwb

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/hugemem"
	"github.com/lindigo/lindi/internal/readahead"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// PhysicalBlock is one block of samples of a TimeSeries in its Unit, yielded
// by PhysicalBlocks.
type PhysicalBlock struct {
	// Start is the index of the block's first sample.
	Start int
	// Data holds samples [Start, Start+Data.Shape[0]) of every channel, as
	// ReadPhysical returns them. It is reused for a later block once the
	// loop body returns: copy what must outlive the step.
	Data *h5.Typed[float64]
}

// ChannelConversion returns a copy of an ElectricalSeries' per-channel
// factors (channel_conversion), which ReadPhysical and PhysicalBlocks apply
// on top of Conversion; nil when the series has none.
func (ts *TimeSeries) ChannelConversion() []float64 { return slices.Clone(ts.channelConv) }

// PhysicalBlocks reads the data in blocks of rows samples along its first
// axis (the last block may be shorter), in order, in Unit as ReadPhysical
// converts them. While the caller works on one block, the next ahead blocks
// are read and converted in parallel (each decoding its chunks on the file's
// workers), so at most ahead+1 blocks are held at once and their memory is
// reused from block to block. Stopping the loop early cancels the reads in
// flight and waits for them. The iteration stops at the first error, which
// it yields; rows must be positive, ahead not negative.
func (ts *TimeSeries) PhysicalBlocks(ctx context.Context, rows, ahead int) iter.Seq2[PhysicalBlock, error] {
	return func(yield func(PhysicalBlock, error) bool) {
		if rows <= 0 || ahead < 0 {
			yield(PhysicalBlock{}, fmt.Errorf("%w: blocks of %s: %d rows with %d ahead", ErrRange, ts.Path(), rows, ahead))
			return
		}
		readahead.Blocks(ctx, ts.Len(), rows, ahead,
			func(ctx context.Context, first, stop int, b *blockBuf) (*blockBuf, error) {
				if b == nil {
					b = &blockBuf{}
				}
				return b, ts.readBlock(ctx, first, stop, b)
			},
			func(first int, b *blockBuf, err error) bool {
				if err != nil {
					return yield(PhysicalBlock{}, err)
				}
				return yield(PhysicalBlock{Start: first, Data: &b.out}, nil)
			})
	}
}

// blockBuf is the memory of one block: the stored values as read and the
// converted ones, kept from block to block.
type blockBuf struct {
	raw any // a []T of the data's element type
	out h5.Typed[float64]
}

// readBlock reads samples [start, stop) into b and converts them to Unit.
func (ts *TimeSeries) readBlock(ctx context.Context, start, stop int, b *blockBuf) error {
	sel := selection.Selection{selection.Slice(start, stop, 1)}
	shape := append([]int{stop - start}, ts.data.Shape()[1:]...)
	var err error
	switch dt := ts.data.DType(); {
	case dt.Kind == zarrmeta.KindInt && dt.Size == 1:
		err = readScaled[int8](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindInt && dt.Size == 2:
		err = readScaled[int16](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindInt && dt.Size == 4:
		err = readScaled[int32](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindInt && dt.Size == 8:
		err = readScaled[int64](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindUint && dt.Size == 1:
		err = readScaled[uint8](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindUint && dt.Size == 2:
		err = readScaled[uint16](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindUint && dt.Size == 4:
		err = readScaled[uint32](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindUint && dt.Size == 8:
		err = readScaled[uint64](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 4:
		err = readScaled[float32](ctx, ts, sel, shape, b)
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 8:
		err = readScaled[float64](ctx, ts, sel, shape, b)
	default:
		err = h5.ErrType
	}
	if errors.Is(err, h5.ErrType) { // bool, or numbers stored in another form: the general path
		v, err := ts.ReadPhysical(ctx, start, stop)
		if err != nil {
			return err
		}
		b.out = *v
		return nil
	}
	return err
}

// readScaled reads sel, of the given shape, as stored values of type T into
// b's buffer, then converts them into b.out.
func readScaled[T h5.Number](ctx context.Context, ts *TimeSeries, sel selection.Selection, shape []int, b *blockBuf) error {
	n := 1
	for _, s := range shape {
		n *= s
	}
	raw, _ := b.raw.([]T)
	if cap(raw) < n {
		raw = hugemem.Slice[T](n)
	}
	raw = raw[:n]
	b.raw = raw
	if _, err := h5.ReadInto(ctx, ts.data, sel, raw); err != nil {
		return err
	}
	if cap(b.out.Data) < n {
		b.out.Data = hugemem.Slice[float64](n)
	}
	b.out.Data, b.out.Shape = b.out.Data[:n], shape
	scale(ts, b.out.Data, raw, shape)
	return nil
}

// scale sets dst to the values of src in Unit, as ReadPhysical computes them.
func scale[T h5.Number](ts *TimeSeries, dst []float64, src []T, shape []int) {
	conv, off := ts.conversion, ts.offset
	if ts.channelConv == nil {
		for i, x := range src {
			dst[i] = float64(x)*conv + off
		}
		return
	}
	// Axis 1 is the channel: each row is channels runs of inner elements.
	inner := 1
	for _, s := range shape[2:] {
		inner *= s
	}
	cc := ts.channelConv
	row := len(cc) * inner
	if row == 0 {
		return
	}
	if inner == 1 { // samples × channels: the common case, kept tight
		for r := 0; r+row <= len(src); r += row {
			s, d := src[r:r+row], dst[r:r+row]
			s, d = s[:len(cc)], d[:len(cc)] // lets the compiler drop the bounds checks
			for c, f := range cc {
				d[c] = float64(s[c])*conv*f + off
			}
		}
		return
	}
	for r := 0; r+row <= len(src); r += row {
		s, d := src[r:r+row], dst[r:r+row]
		for c, f := range cc {
			for i := c * inner; i < (c+1)*inner; i++ {
				d[i] = float64(s[i])*conv*f + off
			}
		}
	}
}
