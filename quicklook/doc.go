// Package quicklook draws datasets as plots, for a quick look at what a file
// holds: lines of a 1-D selection or of the columns of a 2-D one, an image
// of a wider 2-D selection, with axes labelled from the dataset's path,
// shape and selection and, for the data of an NWB TimeSeries, its unit and
// time axis. Lines, Image and WritePNG are the drawing the lindi command and
// the examples share; Dataset reads a selection and picks the drawing.
//
// It draws with gonum.org/v1/plot. Its functions are safe for concurrent use
// on different plots. Errors wrap ErrShape for a selection with no plot (a
// scalar, or more than two dimensions).
package quicklook
