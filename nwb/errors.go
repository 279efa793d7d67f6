package nwb

import (
	"errors"
	"strings"
)

var (
	// ErrNotNWB is wrapped by errors for files whose root is not an NWBFile.
	ErrNotNWB = errors.New("nwb: not an NWB file")
	// ErrNotTable is wrapped by errors for groups that are not DynamicTables.
	ErrNotTable = errors.New("nwb: not a DynamicTable")
	// ErrNoColumn is wrapped by errors for columns a table does not have.
	ErrNoColumn = errors.New("nwb: no such column")
	// ErrIndex is wrapped by errors for malformed table structure: a
	// VectorIndex whose offsets run backwards or past its target, a column
	// whose length is not the table's, a region index out of range.
	ErrIndex = errors.New("nwb: bad index")
	// ErrNotTimeSeries is wrapped by errors for groups that are not TimeSeries.
	ErrNotTimeSeries = errors.New("nwb: not a TimeSeries")
	// ErrRange is wrapped by errors for row or sample ranges outside an object.
	ErrRange = errors.New("nwb: range out of bounds")
)

// unprefixed is an error whose text drops a leading "h5: " or "nwb: ", for
// wrapping an error that does not name the object (an attribute's, a
// reference's, a sentinel) under a message that says "nwb:" and names it:
// one prefix per message, while errors.Is still sees the sentinel.
type unprefixed struct{ err error }

func (u unprefixed) Error() string {
	s := u.err.Error()
	for _, p := range []string{"h5: ", "nwb: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}
func (u unprefixed) Unwrap() error { return u.err }
