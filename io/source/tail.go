package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// TailReader is implemented by sources that read the end of an object
// without knowing its size first: over HTTP, one suffix range request
// (Range: bytes=-N, RFC 9110 §14.1.2), whose answer also tells the size.
//
// ReadTail reads the last len(p) bytes of the object into p, or the whole
// object into p[:size] when it is shorter than p (no error then), and
// reports the object's size. n is min(len(p), size) when err is nil. On an
// error size is -1 unless an answer told it.
type TailReader interface {
	ReadTail(ctx context.Context, p []byte) (n int, size int64, err error)
}

// ReadTail reads the last len(p) bytes of s into p (the whole object into
// p[:size] when it is shorter than p, with no error) and reports the
// object's size. A TailReader does it its way (HTTP: one request even when
// the size is unknown); any other source is asked its Size, then read at
// size-len(p).
func ReadTail(ctx context.Context, s Source, p []byte) (n int, size int64, err error) {
	if t, ok := s.(TailReader); ok {
		return t.ReadTail(ctx, p)
	}
	if size, err = s.Size(ctx); err != nil {
		return 0, -1, err
	}
	return readTailAt(ctx, s, p, size)
}

// readTailAt reads the tail of s, of the given size, with s.ReadAt: the
// path of a source that knows its size, through any cache s keeps.
func readTailAt(ctx context.Context, s Source, p []byte, size int64) (int, int64, error) {
	if size < 0 {
		return 0, -1, fmt.Errorf("%w: %s: size %d", ErrRange, s.Name(), size)
	}
	off := max(0, size-int64(len(p)))
	q := p[:size-off]
	n, err := s.ReadAt(ctx, q, off)
	if n == len(q) && errors.Is(err, io.EOF) {
		err = nil
	}
	if n < len(q) && errors.Is(err, io.EOF) {
		err = fmt.Errorf("source: %s: %w: the object ends at %d, before its size %d", s.Name(), io.ErrUnexpectedEOF, off+int64(n), size)
	}
	return n, size, err
}

// sizeKnower is implemented by the sources of this package whose size may
// be known without a request (an HTTP source once an answer told it, a
// cache over one).
type sizeKnower interface {
	knownSize() (int64, bool)
}

// knownSize reports the size of s when s knows it without a request.
func knownSize(s Source) (int64, bool) {
	switch v := s.(type) {
	case *File:
		return v.size, true
	case *Bytes:
		return int64(len(v.b)), true
	case *Section:
		return v.n, true
	case *Reader:
		return v.size, true
	case sizeKnower:
		return v.knownSize()
	}
	return 0, false
}

func (h *HTTP) knownSize() (int64, bool) {
	n := h.size.Load()
	return n, n >= 0
}

// errNoSuffix reports a 416 to a suffix range that does not say the object
// is empty: ReadTail then takes the size and reads an ordinary range.
var errNoSuffix = errors.New("source: suffix range not satisfied")

// tailRead is the state of one HTTP ReadTail across its attempts.
type tailRead struct {
	p     []byte
	first int64 // where p[0] lies in the object; -1 until an answer tells
	want  int   // the bytes of p the tail fills, once first is known
	got   int
	eof   bool // the last answer said the object ends before first+want
}

// ReadTail reads the last len(p) bytes of the object with one suffix range
// request, whose answer tells the size too (a 200 from a server ignoring
// Range is taken as ReadAt takes it: whole when small enough, else
// ErrWhole). When the size is known already (an earlier answer told it, a
// small object is kept whole), it reads at size-len(p) as ReadAt does. A
// body cut part way is resumed with an ordinary range request, under the
// same Retry policy as ReadAt.
func (h *HTTP) ReadTail(ctx context.Context, p []byte) (int, int64, error) {
	if size, ok := h.knownSize(); ok {
		return readTailAt(ctx, h, p, size)
	}
	if len(p) == 0 {
		size, err := h.Size(ctx)
		if err != nil {
			return 0, -1, err
		}
		return 0, size, nil
	}
	t := tailRead{p: p, first: -1}
	err := h.retrying(ctx, len(p), func(ctx context.Context, target string) answer {
		if t.first < 0 {
			a := h.attempt(ctx, len(p), func(actx context.Context, progress func()) (int, answer) {
				return h.tailExchange(actx, target, &t, progress)
			})
			t.got, t.eof = t.got+a.n, a.eof
			return a
		}
		// An answer told the size and the body was cut: the rest is an
		// ordinary range.
		q, at := p[t.got:t.want], t.first+int64(t.got)
		a := h.attempt(ctx, len(q), func(actx context.Context, progress func()) (int, answer) {
			return h.exchange(actx, target, q, at, progress)
		})
		t.got, t.eof = t.got+a.n, a.eof
		return a
	})
	size := h.size.Load()
	switch {
	case errors.Is(err, errNoSuffix):
		if size < 0 {
			if size, err = h.Size(ctx); err != nil {
				return 0, -1, err
			}
		}
		return readTailAt(ctx, h, p, size)
	case err != nil && t.eof:
		return t.got, size, fmt.Errorf("source: %s: %w: the object ends at %d, before its size %d", h.name, io.ErrUnexpectedEOF, t.first+int64(t.got), size)
	case err != nil:
		return t.got, size, err
	}
	return t.want, size, nil
}

// tailExchange sends the suffix range request for the last len(t.p) bytes
// and reads the answer into t.p, setting t.first and t.want once it tells
// where the tail lies.
func (h *HTTP) tailExchange(ctx context.Context, target string, t *tailRead, progress func()) (int, answer) {
	n := int64(len(t.p))
	resp, a := h.send(ctx, target, "bytes=-"+strconv.FormatInt(n, 10), progress)
	if resp == nil {
		return 0, a
	}
	defer closeBody(resp.Body)
	cr := resp.Header.Get("Content-Range")
	switch resp.StatusCode {
	case http.StatusPartialContent:
		if strings.HasSuffix(cr, "/0") && resp.ContentLength <= 0 {
			// An empty object: Go's net/http answers "bytes 0--1/0".
			h.size.Store(0)
			t.first, t.want = 0, 0
			return 0, answer{}
		}
		first, last, total, err := parseContentRange(cr)
		if err != nil {
			return 0, answer{err: fmt.Errorf("source: %s: %w for the last %d bytes", h.name, err, n)}
		}
		if total < 0 {
			return 0, answer{err: fmt.Errorf("%w: %s: Content-Range %q for the last %d bytes does not give the size", ErrProtocol, h.name, cr, n)}
		}
		if first != max(0, total-n) || last != total-1 {
			return 0, answer{err: fmt.Errorf("%w: %s: asked the last %d bytes, got bytes %d-%d of %d", ErrProtocol, h.name, n, first, last, total)}
		}
		want := int(last - first + 1)
		if resp.ContentLength >= 0 && resp.ContentLength != int64(want) {
			return 0, answer{err: fmt.Errorf("%w: %s: Content-Length %d for range %d-%d", ErrProtocol, h.name, resp.ContentLength, first, last)}
		}
		h.size.Store(total)
		t.first, t.want = first, want
		got, err := readBody(resp.Body, t.p[:want], progress)
		if err != nil {
			return got, answer{err: fmt.Errorf("source: %s: body cut after %d of %d bytes: %w", h.name, got, want, err), retry: true}
		}
		return got, answer{}
	case http.StatusOK:
		// The server ignored Range: the whole object comes, taken as
		// ReadAt takes it.
		size := resp.ContentLength
		off, q := int64(0), t.p
		if size >= 0 {
			off = max(0, size-n)
			q = t.p[:size-off]
		}
		got, a := h.full(resp, q, off, progress)
		if size >= 0 && (a.err == nil || a.retry) {
			t.first, t.want = off, len(q)
		}
		return got, a
	case http.StatusRequestedRangeNotSatisfiable:
		// A suffix of a non-empty object is always satisfiable.
		total, ok := unsatisfiedTotal(cr)
		if ok {
			h.size.Store(total)
		}
		if ok && total == 0 {
			t.first, t.want = 0, 0
			return 0, answer{}
		}
		return 0, answer{err: errNoSuffix}
	}
	return 0, h.failed(resp)
}

// tailOf tells a decorator of src how to read its tail: at size through the
// decorator's own ReadAt (tr nil: src knows its size, or tells it without
// a tail read of its own), or through tr, src's ReadTail, which learns it.
func tailOf(ctx context.Context, src Source) (size int64, tr TailReader, err error) {
	if size, ok := knownSize(src); ok {
		return size, nil, nil
	}
	if tr, ok := src.(TailReader); ok {
		return -1, tr, nil
	}
	size, err = src.Size(ctx)
	return size, nil, err
}
