package h5

import (
	"context"

	"github.com/lindigo/lindi/io/source"
)

// locate asks the registered locators where name's bytes are, with the
// source options of opts (client, policy, retries, timeout, WithLocator,
// WithOriginal, WithWarn), after checking name against WithRoot and
// WithLocalOnly.
func locate(ctx context.Context, name string, opts []Option) (source.Location, error) {
	var o options
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return source.Location{}, err
		}
	}
	if err := o.confined(name); err != nil {
		return source.Location{}, err
	}
	return source.Locate(ctx, name, o.sourceOpts...)
}
