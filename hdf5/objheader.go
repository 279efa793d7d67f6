package hdf5

import (
	"bytes"
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Header message types the reader knows.
const (
	msgNil          = 0x00
	msgDataspace    = 0x01
	msgLinkInfo     = 0x02
	msgDatatype     = 0x03
	msgFillOld      = 0x04
	msgFill         = 0x05
	msgLink         = 0x06
	msgExternalFile = 0x07
	msgLayout       = 0x08
	msgGroupInfo    = 0x0a
	msgFilters      = 0x0b
	msgAttribute    = 0x0c
	msgContinuation = 0x10
	msgSymbolTable  = 0x11
	msgAttrInfo     = 0x15
)

// Message flag bits.
const (
	msgFlagShared = 0x02
)

// Limits on object headers: far beyond anything the library writes, small
// enough that a hostile header cannot exhaust memory or time.
const (
	maxHeaderChunk    = 16 << 20 // bytes in one header chunk
	maxHeaderChunks   = 4096     // chunks (continuation blocks) per header
	maxHeaderMessages = 1 << 16  // messages per header
)

// message is one header message, its body aliasing the chunk it was read
// from.
type message struct {
	typ   uint16
	flags uint8
	order uint16 // creation order, when the header tracks it
	body  []byte
}

// objectHeader is a parsed object header: all messages of all chunks, in
// file order.
type objectHeader struct {
	addr    uint64
	version int
	msgs    []message
}

// first returns the first message of type typ.
func (h *objectHeader) first(typ uint16) (message, bool) {
	for _, m := range h.msgs {
		if m.typ == typ {
			return m, true
		}
	}
	return message{}, false
}

// all returns the messages of type typ, in file order.
func (h *objectHeader) all(typ uint16) []message {
	var out []message
	for _, m := range h.msgs {
		if m.typ == typ {
			out = append(out, m)
		}
	}
	return out
}

// continuation is a pending header chunk to read.
type continuation struct{ addr, length uint64 }

// headerParser accumulates the messages of one object header.
type headerParser struct {
	h       *objectHeader
	r       *fileio.Reader
	sizes   fileio.Sizes
	tracked bool // v2 messages carry a creation order
	pending []continuation
	seen    map[uint64]bool
	nChunks int
}

// readObjectHeader reads and parses the object header at addr, following
// its continuation blocks.
func readObjectHeader(ctx context.Context, r *fileio.Reader, addr uint64) (*objectHeader, error) {
	p := &headerParser{h: &objectHeader{addr: addr}, r: r, sizes: r.Sizes(), seen: map[uint64]bool{addr: true}}
	if err := p.read(ctx); err != nil {
		return nil, fmt.Errorf("object header at %d: %w", addr, err)
	}
	return p.h, nil
}

func (p *headerParser) read(ctx context.Context) error {
	addr := p.h.addr
	n := min(uint64(40), uint64(p.r.Size())-min(uint64(p.r.Size()), p.sizes.Base+addr))
	prefix, err := p.r.Bytes(ctx, addr, n)
	if err != nil {
		return err
	}
	if bytes.HasPrefix(prefix, []byte("OHDR")) {
		err = p.readV2(ctx, prefix)
	} else {
		err = p.readV1(ctx, prefix)
	}
	if err != nil {
		return err
	}
	for len(p.pending) > 0 {
		c := p.pending[0]
		p.pending = p.pending[1:]
		if err := p.readContinuation(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

func (p *headerParser) readV1(ctx context.Context, prefix []byte) error {
	d := fileio.NewDecoder(prefix, p.sizes)
	version := d.Uint8()
	d.Skip(1)
	d.Uint16() // message count: the chunks say the same, and are checked
	d.Uint32() // reference count
	size := d.Uint32()
	if err := d.Err(); err != nil {
		return err
	}
	if version != 1 {
		return fmt.Errorf("%w: object header version %d", ErrFormat, version)
	}
	p.h.version = 1
	// The 12-byte prefix is padded to 16 so messages are 8-byte aligned.
	first := continuation{p.h.addr + 16, uint64(size)}
	p.seen[first.addr] = true
	return p.chunk(ctx, first)
}

func (p *headerParser) readV2(ctx context.Context, prefix []byte) error {
	d := fileio.NewDecoder(prefix, p.sizes)
	d.Skip(4)
	version, flags := d.Uint8(), d.Uint8()
	if version != 2 {
		return fmt.Errorf("%w: object header version %d", ErrFormat, version)
	}
	if flags&0x20 != 0 {
		d.Skip(16) // access, modification, change, birth times
	}
	if flags&0x10 != 0 {
		d.Skip(4) // attribute storage phase change values
	}
	size := d.Uint(1 << (flags & 3))
	if err := d.Err(); err != nil {
		return err
	}
	if size > maxHeaderChunk {
		return fmt.Errorf("%w: object header chunk of %d bytes", ErrFormat, size)
	}
	p.h.version = 2
	p.tracked = flags&0x04 != 0
	start := uint64(d.Pos())
	b, err := p.r.Bytes(ctx, p.h.addr, start+size+4)
	if err != nil {
		return err
	}
	if err := fileio.VerifyChecksum(b, "object header"); err != nil {
		return err
	}
	p.nChunks++
	return p.messagesV2(b[start : start+size])
}

func (p *headerParser) readContinuation(ctx context.Context, c continuation) error {
	if p.seen[c.addr] {
		return fmt.Errorf("%w: continuation block at %d is read twice (loop)", ErrFormat, c.addr)
	}
	p.seen[c.addr] = true
	if p.h.version == 1 {
		return p.chunk(ctx, c)
	}
	if c.length < 8 || c.length > maxHeaderChunk {
		return fmt.Errorf("%w: continuation block of %d bytes at %d", ErrFormat, c.length, c.addr)
	}
	if err := p.count(); err != nil {
		return err
	}
	b, err := p.r.Bytes(ctx, c.addr, c.length)
	if err != nil {
		return fmt.Errorf("continuation block at %d: %w", c.addr, err)
	}
	if !bytes.HasPrefix(b, []byte("OCHK")) {
		return fmt.Errorf("%w: continuation block at %d has signature %q, want OCHK", ErrFormat, c.addr, b[:4])
	}
	if err := fileio.VerifyChecksum(b, "object header continuation block"); err != nil {
		return err
	}
	return p.messagesV2(b[4 : len(b)-4])
}

// chunk reads one version 1 header chunk.
func (p *headerParser) chunk(ctx context.Context, c continuation) error {
	if c.length > maxHeaderChunk {
		return fmt.Errorf("%w: object header chunk of %d bytes", ErrFormat, c.length)
	}
	if err := p.count(); err != nil {
		return err
	}
	b, err := p.r.Bytes(ctx, c.addr, c.length)
	if err != nil {
		return fmt.Errorf("object header chunk at %d: %w", c.addr, err)
	}
	return p.messagesV1(b)
}

func (p *headerParser) count() error {
	p.nChunks++
	if p.nChunks > maxHeaderChunks {
		return fmt.Errorf("%w: more than %d object header chunks", ErrFormat, maxHeaderChunks)
	}
	return nil
}

func (p *headerParser) messagesV1(b []byte) error {
	d := fileio.NewDecoder(b, p.sizes)
	for d.Len() >= 8 {
		typ, size, flags := d.Uint16(), d.Uint16(), d.Uint8()
		d.Skip(3)
		body := d.Bytes(int(size))
		if err := d.Err(); err != nil {
			return fmt.Errorf("message type %#x of %d bytes: %w", typ, size, err)
		}
		if err := p.add(message{typ: typ, flags: flags, body: body}); err != nil {
			return err
		}
	}
	return nil
}

func (p *headerParser) messagesV2(b []byte) error {
	d := fileio.NewDecoder(b, p.sizes)
	hdr := 4
	if p.tracked {
		hdr = 6
	}
	// Fewer bytes than a message header at the end of a chunk are a gap.
	for d.Len() >= hdr {
		m := message{typ: uint16(d.Uint8())}
		size := d.Uint16()
		m.flags = d.Uint8()
		if p.tracked {
			m.order = d.Uint16()
		}
		m.body = d.Bytes(int(size))
		if err := d.Err(); err != nil {
			return fmt.Errorf("message type %#x of %d bytes: %w", m.typ, size, err)
		}
		if err := p.add(m); err != nil {
			return err
		}
	}
	return nil
}

// add records a message, queueing the block a continuation message names.
func (p *headerParser) add(m message) error {
	if len(p.h.msgs) >= maxHeaderMessages {
		return fmt.Errorf("%w: more than %d header messages", ErrFormat, maxHeaderMessages)
	}
	switch m.typ {
	case msgNil:
		return nil
	case msgContinuation:
		d := fileio.NewDecoder(m.body, p.sizes)
		c := continuation{d.Offset(), d.Length()}
		if err := d.Err(); err != nil {
			return fmt.Errorf("continuation message: %w", err)
		}
		p.pending = append(p.pending, c)
		return nil
	}
	p.h.msgs = append(p.h.msgs, m)
	return nil
}
