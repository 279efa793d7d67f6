package driver

import (
	"errors"

	"github.com/lindigo/lindi/store"
)

// ValueSize is the stored size of a chunk a store's Get answered with v
// and err, for an engine.Sizer: 0 for a chunk the store does not have, the
// length of bytes in memory or of a located range, and known false for a
// value whose size only a request tells (a remote object).
func ValueSize(v store.Value, err error) (n int64, known bool, _ error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, true, nil
	case err != nil:
		return 0, false, err
	case v.InMemory():
		return int64(len(v.Data)), true, nil
	case v.Len >= 0:
		return v.Len, true, nil
	}
	return 0, false, nil
}
