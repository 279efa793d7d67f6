// Package quicklook draws datasets as plots, for a quick look at what a file
// holds: lines of a 1-D selection or of the columns of a 2-D one, an image
// of a wider 2-D selection, with axes labelled from the dataset's path,
// shape and selection and, for the data of an NWB TimeSeries, its unit and
// time axis. Lines, Image and WritePNG are the drawing the lindi command and
// the examples share; Dataset reads a selection and picks the drawing.
//
// It draws PNGs with golang.org/x/image (the Go Regular font, the vector
// rasterizer) and the standard library, and does no work when imported:
// the font is parsed on the first draw. A figure is a *Figure; WritePNG
// stacks figures, their plot areas aligned. Its functions are safe for
// concurrent use; a figure may be drawn by several goroutines at once, but
// not changed (SetLogY) while it is drawn. Errors wrap ErrShape for data
// with no plot (a scalar, more than two dimensions, values that do not fit
// the shape given).
package quicklook
