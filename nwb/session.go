package nwb

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/h5"
)

// Session is the file-level metadata of an NWB file. Fields the file does
// not have are empty.
type Session struct {
	Identifier  string
	Description string
	StartTime   string // ISO 8601, as stored
	Lab         string
	Institution string
	// Experimenters lists general/experimenter.
	Experimenters []string
	// Subject holds the text datasets of general/subject (subject_id,
	// species, sex, age, …) by name.
	Subject map[string]string
	// Devices lists the names of the groups in general/devices.
	Devices []string
}

// Session reads the file's session metadata.
func (f *File) Session(ctx context.Context) (Session, error) {
	root := f.h.Root()
	var s Session
	var err error
	for _, x := range []struct {
		dst  *string
		path string
	}{
		{&s.Identifier, "identifier"},
		{&s.Description, "session_description"},
		{&s.StartTime, "session_start_time"},
		{&s.Lab, "general/lab"},
		{&s.Institution, "general/institution"},
	} {
		if *x.dst, err = text(ctx, root, x.path); err != nil {
			return s, fmt.Errorf("nwb: session: %w", unprefixed{err})
		}
	}
	if d, err := root.Dataset(ctx, "general/experimenter"); err == nil {
		e, err := h5.Read[string](ctx, d, nil)
		if err != nil {
			return s, fmt.Errorf("nwb: session: %w", unprefixed{err})
		}
		s.Experimenters = e.Data
	}
	if g, err := root.Group(ctx, "general/subject"); err == nil {
		s.Subject = map[string]string{}
		for _, name := range g.Members() {
			if d, err := g.Dataset(ctx, name); err == nil && d.Size() == 1 {
				if v, err := textOf(ctx, d); err == nil {
					s.Subject[name] = v
				}
			}
		}
	}
	if g, err := root.Group(ctx, "general/devices"); err == nil {
		s.Devices = g.Members()
	}
	return s, nil
}
