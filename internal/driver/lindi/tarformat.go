package lindi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lindigo/lindi/internal/driver"
)

// The sizes Python lindi gives the members it creates, and the USTAR limits.
const (
	block       = 512  // a tar header, and the unit data is padded to
	initialSize = 8192 // the first size of the index and of lindi.json
	tailSize    = 1024 // the zero blocks that end a tar
	nameField   = 100  // USTAR's name field
	prefixField = 155  // USTAR's prefix field
	maxSize     = 1<<33 - 1
)

// record is a file of .tar_index.json: its name, the offsets of its header
// and data, and its size.
type record struct {
	name    string
	o, d, s int64
}

// end is the offset after the record's data padded to a whole block.
func (r record) end() int64 { return roundUp(r.d + r.s) }

func roundUp(n int64) int64 { return (n + block - 1) / block * block }

// header returns the 512-byte USTAR header Python lindi writes for a member
// (create_tar_header.py): mode 0644, uid, gid and mtime zero, typeflag '0',
// no user or group names. A name over 100 bytes, which Python lindi cannot
// write, is split at a '/' into the prefix field and the name field, as
// POSIX defines.
func header(name string, size int64) ([]byte, error) {
	prefix, base, err := splitName(name)
	if err != nil {
		return nil, err
	}
	if size < 0 || size > maxSize {
		return nil, fmt.Errorf("lindi: member %q: %d bytes do not fit a USTAR header (at most %d)", name, size, int64(maxSize))
	}
	h := make([]byte, block)
	copy(h[0:], base)
	copy(h[100:], "0000644\x00")
	copy(h[108:], "0000000\x00")
	copy(h[116:], "0000000\x00")
	copy(h[124:], fmt.Sprintf("%011o\x00", size))
	copy(h[136:], "00000000000\x00")
	copy(h[148:], "        ")
	h[156] = '0'
	copy(h[257:], "ustar\x0000")
	copy(h[345:], prefix)
	sum := 0
	for _, c := range h {
		sum += int(c)
	}
	copy(h[148:], fmt.Sprintf("%06o\x00 ", sum))
	return h, nil
}

// splitName fits name into USTAR's name field, or into its prefix and name
// fields split at a '/'; a name that fits neither way is refused.
func splitName(name string) (prefix, base string, err error) {
	if len(name) <= nameField {
		return "", name, nil
	}
	// The longest prefix that fits leaves the shortest name.
	for i := min(len(name)-1, prefixField); i > 0; i-- {
		if name[i] == '/' && len(name)-i-1 <= nameField && len(name)-i-1 > 0 {
			return name[:i], name[i+1:], nil
		}
	}
	return "", "", fmt.Errorf("lindi: member name %q (%d bytes) does not fit a USTAR header: it needs a '/' leaving at most %d bytes before it and %d after", name, len(name), prefixField, nameField)
}

// checkKey refuses a Zarr key that cannot name a member: empty, "." or ".."
// segments, backslashes, NULs, or bytes that are not UTF-8.
func checkKey(key string) error {
	if !utf8.ValidString(key) || strings.ContainsRune(key, 0) {
		return fmt.Errorf("lindi: key %q: %w: not UTF-8 text without NULs", key, driver.ErrFormat)
	}
	if err := checkName(key); err != nil {
		return fmt.Errorf("lindi: key %q: %w", key, err)
	}
	return nil
}

// grownSize is the size a member of n bytes is padded to, to leave it room
// to grow in place: Python lindi's rule (_pad_bytes_to_leave_room_for_growth:
// initial bytes, doubled until at least four times n) while that pads by at
// most maxRoom(n), else n and maxRoom(n) rounded up to whole blocks. Python
// lindi's rule alone made a 2.8 MB lindi.json 16 MB; its reads take a
// member of any size, and its writes rewrite a member in place when the new
// text fits and append a new one when it does not.
func grownSize(n int, initial int64) int64 {
	size := initial
	for size < 4*int64(n) {
		size *= 2
	}
	if room := maxRoom(n); size-int64(n) > room {
		size = (int64(n) + room + block - 1) / block * block
	}
	return size
}

// maxRoom is the most padding grownSize leaves after n bytes: a quarter of
// them, and at least 64 KiB.
func maxRoom(n int) int64 { return max(64<<10, int64(n)/4) }

// padded reads data followed by spaces up to size bytes.
func padded(data []byte, size int64) io.Reader {
	return io.MultiReader(bytes.NewReader(data), io.LimitReader(spaces{}, size-int64(len(data))))
}

// spaces reads endless spaces.
type spaces struct{}

func (spaces) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// padTo pads data with spaces to size bytes.
func padTo(data []byte, size int64) []byte {
	out := make([]byte, size)
	copy(out, data)
	for i := len(data); i < len(out); i++ {
		out[i] = ' '
	}
	return out
}

// entryJSON is .tar_entry.json pointing at the index r, formatted as Python's
// json.dumps(indent=2, sort_keys=True) formats it, padded to 1024 bytes.
func entryJSON(r record) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"index\": ")
	writeRecord(&b, r, "  ")
	b.WriteString("\n}")
	return padTo(b.Bytes(), tailSize)
}

// indexJSON is .tar_index.json listing files, formatted as Python lindi
// formats it (json.dumps(indent=2, sort_keys=True)), unpadded.
func indexJSON(files []record) []byte {
	var b bytes.Buffer
	b.WriteString("{\n  \"files\": [")
	for i, r := range files {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n    ")
		writeRecord(&b, r, "    ")
	}
	b.WriteString("\n  ]\n}")
	return b.Bytes()
}

func writeRecord(b *bytes.Buffer, r record, indent string) {
	in := indent + "  "
	var num [20]byte
	field := func(key string, v int64, comma bool) {
		b.WriteString(in)
		b.WriteString(key)
		b.Write(strconv.AppendInt(num[:0], v, 10))
		if comma {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("{\n")
	field(`"d": `, r.d, true)
	b.WriteString(in)
	b.WriteString(`"n": `)
	b.WriteString(pyString(r.name))
	b.WriteString(",\n")
	field(`"o": `, r.o, true)
	field(`"s": `, r.s, false)
	b.WriteString(indent)
	b.WriteByte('}')
}

// pyString quotes s as Python's json module does with ensure_ascii: the
// escapes \" \\ \n \r \t \b \f, \u00XX for other control characters, and
// \uXXXX (surrogate pairs beyond U+FFFF) for every non-ASCII character.
func pyString(s string) string {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			plain = false
			break
		}
	}
	if plain {
		return `"` + s + `"`
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || r > 0x7f && r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// parseRecords parses .tar_index.json into its files, in order, for a tar
// of size bytes: every file must lie within it. A name listed twice keeps
// its last record, as Python lindi's lookup does.
func parseRecords(b []byte, size int64) ([]record, error) {
	var idx struct {
		Files []member `json:"files"`
	}
	if err := json.Unmarshal(trimPadding(b), &idx); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", driver.ErrFormat, indexName, err)
	}
	var out []record
	at := map[string]int{}
	for _, f := range idx.Files {
		s, err := f.span()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", indexName, err)
		}
		if f.O == nil || *f.O < 0 || *f.O+block > s.off {
			return nil, fmt.Errorf("%w: %s: file %q has no header offset \"o\" before its data", driver.ErrFormat, indexName, *f.N)
		}
		if s.off > size || s.size > size-s.off {
			return nil, fmt.Errorf("%w: %s: file %q at %d of %d bytes is %w of %d bytes",
				driver.ErrFormat, indexName, *f.N, s.off, s.size, errBounds, size)
		}
		r := record{name: *f.N, o: *f.O, d: s.off, s: s.size}
		if i, ok := at[r.name]; ok {
			out[i] = r
			continue
		}
		at[r.name] = len(out)
		out = append(out, r)
	}
	return out, nil
}

// jsonRef is the ref of a whole member: ["./<name>", 0, size].
func jsonRef(name string, size int) json.RawMessage {
	return json.RawMessage("[" + pyString("./"+name) + ", 0, " + strconv.Itoa(size) + "]")
}
