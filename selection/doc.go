// Package selection describes which elements of an n-dimensional array to
// read, in the numpy style, and plans the read chunk by chunk.
//
// A [Selection] is a list of [Item]s, one per array axis or an [Ellipsis]
// standing for as many full axes as needed: an integer [Index] (negative
// values count from the end; the axis is dropped from the result), a [Slice]
// with any non-zero step (negative steps included, with Python's clamping
// rules), an index [List] (any order, duplicates allowed; the result follows
// the list), a boolean [Mask] and the empty selection, which selects
// everything (on a 0-d array, the scalar). [Parse] reads the text form used by
// the lindi command and the test fixtures, such as "10:200:3, ..., [1, 4, 9]".
//
// Lists and masks on several axes select orthogonally (outer indexing, like
// zarr's oindex): "[0, 2], [1, 3]" selects a 2×2 block. numpy's fancy
// indexing, which broadcasts the two lists together and selects the two
// elements (0, 1) and (2, 3), is the [Vindex] item ("vindex([0, 2], [1, 3])",
// zarr's vindex); a boolean mask over several axes is [MaskND] (nested lists,
// "[[True, False], [False, True]]"). Each covers several axes and gives the
// result one axis of points in their place; a selection holds at most one,
// and [Selection.Split] turns it into points and orthogonal selections of the
// other axes (Resolve refuses it). [NewAxis] ("None" or "newaxis") inserts an
// axis of length 1.
//
// [Selection.Resolve] validates a selection against an array shape and gives
// a [Resolved] selection with the output shape. [Resolved.Plan] lays it over a
// chunk grid and [Plan.Chunks] yields, lazily and in C order of the grid, a
// [ChunkPlan] for every chunk that holds at least one selected element. A
// ChunkPlan says which positions of the chunk are selected and where they land
// in the C-order output, and [ChunkPlan.Runs] turns that into copy runs merged
// across every trailing axis that is contiguous in both the chunk and the
// output. Nothing is allocated per element: memory per chunk is a few slices of
// length ndim, and only index lists and masks cost memory proportional to their
// length.
//
// The package does no I/O.
//
// # Concurrency
//
// Selections, Resolved selections and Plans are immutable once built and safe
// for concurrent use. Each ChunkPlan yielded by [Plan.Chunks] is a fresh value
// that the caller owns: it may be handed to another goroutine.
//
// # Errors
//
// [Parse] returns a [*SyntaxError] naming the offending token and its byte
// offset. Resolve and Plan return errors wrapping [ErrOutOfRange] (an index
// outside its axis), [ErrInvalid] (step 0, too many items, two ellipses, a
// mask of the wrong length, a bad shape or chunk shape) or [ErrTooLarge] (a
// size that does not fit in an int); the message names the axis and value.
package selection
