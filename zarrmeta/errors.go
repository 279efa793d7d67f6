package zarrmeta

import "errors"

// Errors returned by this package, wrapped with detail naming what was
// wrong. Callers test them with errors.Is.
var (
	// ErrJSON reports text that is not JSON, even with Python's NaN and
	// Infinity tokens allowed.
	ErrJSON = errors.New("zarrmeta: bad JSON")
	// ErrDType reports a dtype that is malformed or not supported.
	ErrDType = errors.New("zarrmeta: bad dtype")
	// ErrArray reports invalid .zarray metadata.
	ErrArray = errors.New("zarrmeta: bad .zarray")
	// ErrFill reports a fill_value that does not fit its dtype.
	ErrFill = errors.New("zarrmeta: bad fill_value")
	// ErrGroup reports invalid .zgroup metadata.
	ErrGroup = errors.New("zarrmeta: bad .zgroup")
	// ErrAttrs reports invalid .zattrs metadata, including malformed LINDI
	// marker attributes.
	ErrAttrs = errors.New("zarrmeta: bad .zattrs")
	// ErrReference reports a malformed LINDI _REFERENCE object.
	ErrReference = errors.New("zarrmeta: bad _REFERENCE")
)
