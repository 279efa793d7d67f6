package h5grove

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/http"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// TIFF tags a grayscale image of one strip needs, in the order a directory
// lists them.
const (
	tagWidth           = 256
	tagHeight          = 257
	tagBitsPerSample   = 258
	tagCompression     = 259
	tagPhotometric     = 262
	tagStripOffsets    = 273
	tagSamplesPerPixel = 277
	tagRowsPerStrip    = 278
	tagStripByteCounts = 279
	tagSampleFormat    = 339
)

// tiffHeadLen is the length of the header and IFD of the TIFF files
// writeTIFF writes, before the pixels: ten entries.
const tiffHeadLen = 8 + 2 + 10*12 + 4

// writeTIFF writes a 2-D numeric array as a little-endian baseline TIFF
// image of one uncompressed strip, one sample a pixel (black is zero), its
// numbers as stored (SampleFormat says unsigned, signed or float), as
// tifffile's imwrite with photometric="minisblack" does.
func writeTIFF(w http.ResponseWriter, a *h5.Array, shape []int) error {
	if len(shape) != 2 {
		return fmt.Errorf("%w: Unsupported encoding tiff for %d-D data: select 2 dimensions", errQuery, len(shape))
	}
	dt := a.DType
	format := map[zarrmeta.Kind]uint32{zarrmeta.KindBool: 1, zarrmeta.KindUint: 1, zarrmeta.KindInt: 2, zarrmeta.KindFloat: 3}[dt.Kind]
	if format == 0 {
		return fmt.Errorf("%w: Unsupported encoding tiff for %s data", errQuery, dt)
	}
	if len(a.Data) > math.MaxUint32-4096 {
		return fmt.Errorf("%w: %d bytes are too many for a TIFF image", errTooLarge, len(a.Data))
	}
	type entry struct {
		tag, typ uint16
		value    uint32
	}
	const short, long = 3, 4
	const entries = 10
	dataAt := uint32(tiffHeadLen)
	ifd := []entry{
		{tagWidth, long, uint32(shape[1])},
		{tagHeight, long, uint32(shape[0])},
		{tagBitsPerSample, short, uint32(8 * dt.Size)},
		{tagCompression, short, 1},
		{tagPhotometric, short, 1},
		{tagStripOffsets, long, dataAt},
		{tagSamplesPerPixel, short, 1},
		{tagRowsPerStrip, long, uint32(shape[0])},
		{tagStripByteCounts, long, uint32(len(a.Data))},
		{tagSampleFormat, short, format},
	}
	head := make([]byte, dataAt)
	le := binary.LittleEndian
	copy(head, "II*\x00")
	le.PutUint32(head[4:], 8)
	le.PutUint16(head[8:], entries)
	for i, e := range ifd {
		b := head[10+12*i:]
		le.PutUint16(b, e.tag)
		le.PutUint16(b[2:], e.typ)
		le.PutUint32(b[4:], 1)
		if e.typ == short {
			le.PutUint16(b[8:], uint16(e.value))
		} else {
			le.PutUint32(b[8:], e.value)
		}
	}
	w.Header().Set("Content-Type", "image/tiff")
	w.Header().Set("Content-Disposition", `attachment; filename="data.tiff"`)
	w.Header().Set("Content-Length", fmt.Sprint(len(head)+len(a.Data)))
	w.Write(head)
	_, err := w.Write(a.Data)
	return err
}
