// Package errpath names an object's path in an error once, however many
// layers wrap it: hdf5 names the object whose header it cannot read, the
// driver and h5 wrap that error again for the same path, and the message
// still reads "h5: /misc: object header at 1664: …", not
// "h5: /misc: /misc: hdf5: /misc: /misc: object header…".
package errpath

import "errors"

// Error is an error about the object at Path. Its message is Prefix, the
// path, ": " and the message of the innermost error about the same path
// that it wraps; what lies between (the same path said again by other
// layers) is left out of the message but stays in the chain, so errors.Is
// and errors.As see every error wrapped.
type Error struct {
	Prefix string // the layer's prefix, such as "h5: ", or ""
	Path   string
	Err    error // the wrapped error, whole
	detail error // the innermost error about Path's own cause, or nil for Err
}

// Wrap returns err as an error about path, with prefix before the path; a
// nil err is nil.
func Wrap(prefix, path string, err error) error {
	if err == nil {
		return nil
	}
	e := &Error{Prefix: prefix, Path: path, Err: err}
	var inner *Error
	if errors.As(err, &inner) && inner.Path == path {
		e.detail = inner.cause()
	}
	return e
}

func (e *Error) cause() error {
	if e.detail != nil {
		return e.detail
	}
	return e.Err
}

// Error returns Prefix, Path, ": " and the cause.
func (e *Error) Error() string { return e.Prefix + e.Path + ": " + e.cause().Error() }

// Unwrap returns the wrapped error, whole.
func (e *Error) Unwrap() error { return e.Err }
