package hdf5

import (
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// LinkType is the type of a link from a group to an object.
type LinkType uint8

// Link types. Values from 65 up are user-defined; the library writes none.
const (
	LinkHard     LinkType = 0
	LinkSoft     LinkType = 1
	LinkExternal LinkType = 64
)

// String returns "hard", "soft", "external" or "user-defined N".
func (t LinkType) String() string {
	switch t {
	case LinkHard:
		return "hard"
	case LinkSoft:
		return "soft"
	case LinkExternal:
		return "external"
	}
	return fmt.Sprintf("user-defined %d", uint8(t))
}

// Link is one member of a group. Addr is set for hard links; Target holds a
// soft link's path, or an external link's object path with File naming the
// target file.
type Link struct {
	Name   string
	Type   LinkType
	Addr   uint64
	Target string
	File   string
}

// parseLink decodes a link message (type 0x0006).
func parseLink(b []byte, sizes fileio.Sizes) (Link, error) {
	d := fileio.NewDecoder(b, sizes)
	var l Link
	version, flags := d.Uint8(), d.Uint8()
	if d.Err() == nil && version != 1 {
		return l, fmt.Errorf("%w: link message version %d", ErrFormat, version)
	}
	if flags&0x08 != 0 {
		l.Type = LinkType(d.Uint8())
	}
	if flags&0x04 != 0 {
		d.Uint64() // creation order
	}
	if flags&0x10 != 0 {
		d.Uint8() // character set of the name
	}
	n := d.Uint(1 << (flags & 3))
	if d.Err() == nil && n > uint64(d.Len()) {
		return l, fmt.Errorf("%w: link name of %d bytes in a %d-byte message", ErrFormat, n, len(b))
	}
	l.Name = string(d.Bytes(int(n)))
	switch l.Type {
	case LinkHard:
		l.Addr = d.Offset()
	case LinkSoft:
		l.Target = string(d.Bytes(int(d.Uint16())))
	case LinkExternal:
		info := fileio.NewDecoder(d.Bytes(int(d.Uint16())), sizes)
		if v := info.Uint8(); info.Err() == nil && v>>4 != 0 {
			return l, fmt.Errorf("%w: external link version %d", ErrFormat, v>>4)
		}
		l.File = readCString(info)
		l.Target = readCString(info)
		if err := info.Err(); err != nil {
			return l, fmt.Errorf("external link %q: %w", l.Name, err)
		}
	}
	if err := d.Err(); err != nil {
		return l, fmt.Errorf("link message: %w", err)
	}
	if l.Name == "" {
		return l, fmt.Errorf("%w: link with an empty name", ErrFormat)
	}
	return l, nil
}

// linkInfo is the link info message (type 0x0002) of a new-style group.
type linkInfo struct {
	heapAddr  uint64 // fractal heap of dense links, or Undefined
	nameIndex uint64 // version 2 B-tree indexing names, or Undefined
}

func parseLinkInfo(b []byte, sizes fileio.Sizes) (linkInfo, error) {
	d := fileio.NewDecoder(b, sizes)
	var li linkInfo
	if v := d.Uint8(); d.Err() == nil && v != 0 {
		return li, fmt.Errorf("%w: link info message version %d", ErrFormat, v)
	}
	flags := d.Uint8()
	if flags&1 != 0 {
		d.Uint64() // maximum creation index
	}
	li.heapAddr = d.Offset()
	li.nameIndex = d.Offset()
	if err := d.Err(); err != nil {
		return li, fmt.Errorf("link info message: %w", err)
	}
	return li, nil
}
