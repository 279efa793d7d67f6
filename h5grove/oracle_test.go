package h5grove

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lindigo/lindi/index"
)

// oracleAnswer is one answer of h5grove's own app, as testdata/oracle.py
// stored it.
type oracleAnswer struct {
	File     string            `json:"file"`
	Endpoint string            `json:"endpoint"`
	Query    map[string]string `json:"query"`
	Status   int               `json:"status"`
	JSON     json.RawMessage   `json:"json"`
	Bytes    *int              `json:"bytes"`
	SHA256   string            `json:"sha256"`
	Objects  bool              `json:"objects"`
}

// id names an answer in failure messages and in oracleExcluded.
func (a oracleAnswer) id() string {
	q := url.Values{}
	for k, v := range a.Query {
		if k != "file" {
			q.Set(k, v)
		}
	}
	return a.File + " " + a.Endpoint + "?" + q.Encode()
}

// oracleExcluded are the answers of h5grove that `lindi serve` does not give,
// each with why. A key is an answer's id, where "*" stands for any text.
var oracleExcluded = map[string]string{
	"corners/null.h5 /data?format=bin&*":                                     "h5grove's bin of h5py's Empty is the memory address of a Python object",
	"conformance/fixture*.h5 /data?path=%2Fmisc%2Fbig_endian_*":              bigEndianJSON,
	"conformance/fixture*.h5 /data?flatten=true&path=%2Fmisc%2Fbig_endian_*": bigEndianJSON,
	"parity/features.h5 /stats?path=%2Fcomplex*":                             "h5grove's stats of complex data drop the imaginary parts and mix orders: no meaning",
}

const bigEndianJSON = "h5grove's orjson (3.8) writes a big-endian array's bytes as little-endian numbers: wrong values"

// loadOracle reads testdata/oracle.json, written by testdata/oracle.py.
func loadOracle(t *testing.T) []oracleAnswer {
	t.Helper()
	b, err := os.ReadFile("testdata/oracle.json")
	if err != nil {
		t.Fatal(err)
	}
	var o struct{ Answers []oracleAnswer }
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Answers) == 0 {
		t.Fatal("testdata/oracle.json holds no answers")
	}
	return o.Answers
}

// globMatch reports whether s matches pattern, where each "*" stands for
// any text.
func globMatch(pattern, s string) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return pattern == s
	}
	if !strings.HasPrefix(s, pattern[:star]) {
		return false
	}
	for i := star; i <= len(s); i++ {
		if globMatch(pattern[star+1:], s[i:]) {
			return true
		}
	}
	return false
}

// excludedWhy is why a is excluded by the keys of excluded, "" when it is
// compared.
func excludedWhy(a oracleAnswer, excluded map[string]string) string {
	id := a.id()
	if why, ok := excluded[id]; ok {
		return why
	}
	for k, why := range excluded {
		if strings.Contains(k, "*") && globMatch(k, id) {
			return why
		}
	}
	if a.Objects {
		return "h5grove's bin of Python objects (strings, references) is their memory addresses"
	}
	return ""
}

// TestOracle asks `lindi serve` every question testdata/oracle.json holds
// h5grove's own answer to, on the same HDF5 files, and fails listing each
// answer that differs: its status, its JSON (numbers compared by value, an
// error's message only for being one), or its bytes. Where h5grove fails
// (500), and for the answers excluded from comparison, lindi serve must
// still answer: 200, or an error {"message": …}.
func TestOracle(t *testing.T) {
	t.Run("hdf5", func(t *testing.T) { oracleCompare(t, oracleForm{dir: "../testdata"}) })
	t.Run("lindi", func(t *testing.T) {
		oracleCompare(t, oracleForm{dir: "../testdata", files: lindiForms, ignore: lindiUnlike, excluded: lindiExcluded})
	})
	t.Run("index", func(t *testing.T) {
		dir, files := indexed(t, indexedFiles)
		oracleCompare(t, oracleForm{dir: dir, files: files, ignore: indexUnlike, excluded: indexExcluded})
	})
}

// oracleForm is how TestOracle serves the oracle's files: from dir, in
// the form files names for each (all as they are when files is nil),
// differing from h5grove's answers only at the JSON paths ignore matches
// and in the answers excluded names (beside oracleExcluded's), with why.
type oracleForm struct {
	dir              string
	files            map[string]string
	ignore, excluded map[string]string
}

// indexedFiles are oracle files TestOracle indexes with package index
// and serves through their index.
var indexedFiles = []string{"corners/arrayfields.h5", "corners/cattrs.h5", "corners/committed.h5",
	"corners/filters.h5", "corners/null.h5", "corners/opaque.h5", "corners/padded.h5",
	"corners/tagged.h5", "corners/vlencompound.h5", "parity/features.h5", "zarrshadow/data.h5",
	"nwbzarr/ecephys.nwb", "nwbzarr/ophys_behavior.nwb"}

// indexed copies files (relative to ../testdata) into a temporary
// directory beside their LINDI indexes, and returns it and each file's
// index.
func indexed(t *testing.T, files []string) (string, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	forms := map[string]string{}
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join("../testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(src), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(src, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := index.WriteFile(t.Context(), src, src+".lindi.json", index.RelativeRefs()); err != nil {
			t.Fatalf("index %s: %v", name, err)
		}
		forms[name] = name + ".lindi.json"
	}
	return dir, forms
}

// lindiForms are the LINDI indexes of oracle files, served in their stead
// where the forms agree.
var lindiForms = map[string]string{
	"conformance/fixture.h5": "conformance/fixture.lindi.json",
	"parity/parity.h5":       "parity/parity.lindi.json",
	"nwb/tables.nwb":         "nwb/tables.nwb.lindi.json",
}

// lindiExcluded are the answers about a LINDI index that differ from
// h5grove's about its HDF5 file, with why (keys as in oracleExcluded).
var lindiExcluded = map[string]string{
	"parity/parity.h5 /meta?path=%2F":  lindiAttrTypes,
	"parity/parity.h5 /attr?*path=%2F": lindiAttrTypes,
}

const lindiAttrTypes = "LINDI JSON keeps attribute values, not their HDF5 types: an int32 or float32 reads as int64 or float64"

// lindiUnlike are the places in /meta answers (JSON paths, "*" for any
// text) where a LINDI index holds otherwise than its HDF5 file, by design,
// with why.
var lindiUnlike = map[string]string{
	"*.chunks":  "the index stores a dataset in chunks of its own (inlined, split, or as HDF5 stored it)",
	"*.filters": "the index names Zarr codecs (numcodecs ids), not the HDF5 pipeline",
}

// indexUnlike adds to lindiUnlike what package index keeps of other types
// than the conformance fixture's.
var indexUnlike = map[string]string{
	"*.chunks":             lindiUnlike["*.chunks"],
	"*.filters":            lindiUnlike["*.filters"],
	"*.attributes[*].type": lindiAttrTypes,
	"*.type.cset":          "LINDI JSON keeps variable-length strings as JSON text, not their HDF5 character set",
	"*.type.tag":           "the index keeps an opaque dataset's numpy dtype, not its HDF5 tag",
}

// indexExcluded are the answers about an index package index writes that
// differ from h5grove's about its HDF5 file, with why.
var indexExcluded = map[string]string{
	"corners/cattrs.h5 /attr*":                     indexCompoundAttr,
	"corners/arrayfields.h5 /attr?*path=%2F":       indexCompoundAttr,
	"corners/padded.h5 /attr?*path=%2F":            indexCompoundAttr,
	"parity/features.h5 /attr?*path=%2Fscales%2Fx": indexCompoundAttr,
	"corners/padded.h5 /meta*":                     indexRepacked,
	"corners/padded.h5 /data?format=bin*":          indexRepacked,
	"corners/vlencompound.h5 /meta?path=%2F":       indexRepacked,
	"corners/vlencompound.h5 /meta?path=%2Fpadded": indexRepacked,
	"corners/committed.h5 /meta?path=%2Fcolors":    "the index keeps an enum's mapping only in its committed datatype",
	"parity/features.h5 /meta?path=%2Fenum":        "the index keeps the base integer of an enum with no committed datatype",
	"corners/committed.h5 /meta?path=%2F":          "the index keeps an enum attribute's value, not its type (and the enum dataset's, as /colors)",
	"corners/tagged.h5 /meta*":                     "the index keeps an opaque type h5py tagged with a numpy dtype as that dtype",
	"corners/arrayfields.h5 /meta?path=%2F":        indexRefArray,
	"corners/arrayfields.h5 /meta?path=%2Frefs":    indexRefArray,
	"parity/features.h5 *path=%2Fext*":             "the index leaves external links out",
	"parity/features.h5 /paths*":                   "the index leaves external links out",
	"parity/features.h5 /meta?path=%2F":            "the index leaves external links out",
	"parity/features.h5 /meta?path=%2Fgrid":        indexRegionAttrs,
	"parity/features.h5 /attr?*path=%2Fgrid":       indexRegionAttrs,
	"parity/features.h5 /meta?path=%2Fscales*":     indexDims,
	"parity/features.h5 /attr?*path=%2Fscales*":    indexDims,
}

const (
	indexCompoundAttr = "LINDI JSON keeps a compound attribute as a JSON object, which h5 reads as a map: no member order"
	indexRepacked     = "the index repacks a compound with padding: its members in order, no padding (package index's doc)"
	indexRefArray     = "the index keeps a compound's array of references as an array of their paths"
	indexRegionAttrs  = "the index leaves region reference attributes out"
	indexDims         = "the index leaves DIMENSION_LIST (variable-length references) out and keeps DIMENSION_LABELS as JSON text"
)

// oracleCompare asks a server of form the oracle's questions and fails on
// each answer that differs.
func oracleCompare(t *testing.T, form oracleForm) {
	ts := serve(t, Dir(form.dir))
	var diffs []string
	compared, differing, failed := 0, 0, 0
	reasons := map[string]int{}
	for _, a := range loadOracle(t) {
		if form.files != nil {
			other, ok := form.files[a.File]
			if !ok {
				continue
			}
			a.Query = maps.Clone(a.Query)
			a.Query["file"] = other
		}
		why, d := oracleCheck(ts.URL, a, form)
		switch {
		case why != "":
			reasons[why]++
		case a.Status == http.StatusInternalServerError:
			failed++
		default:
			compared++
		}
		if len(d) > 0 {
			differing++
		}
		if len(d) > 4 {
			d = append(d[:4], fmt.Sprintf("%s: … and %d more", a.id(), len(d)-4))
		}
		diffs = append(diffs, d...)
	}
	for _, d := range diffs {
		t.Error(d)
	}
	t.Logf("%d answers of h5grove compared, %d it fails on answered, %d differ", compared, failed, differing)
	for _, why := range slices.Sorted(maps.Keys(reasons)) {
		t.Logf("excluded from comparison (only answered) %d: %s", reasons[why], why)
	}
}

// oracleCheck asks the server at base a's question and lists how its
// answer differs from h5grove's; where a is excluded (why says why) or
// h5grove fails, only that it is an answer: 200, or an error {"message": …}.
func oracleCheck(base string, a oracleAnswer, form oracleForm) (why string, diffs []string) {
	why = cmp.Or(excludedWhy(a, oracleExcluded), excludedWhy(a, form.excluded))
	got, err := oracleAsk(base, a)
	if err != nil {
		return why, []string{fmt.Sprintf("%s: %v", a.id(), err)}
	}
	if why != "" || a.Status == http.StatusInternalServerError {
		return why, answeredDiff(a.id(), got)
	}
	return "", oracleDiff(a, got, form.ignore)
}

// oracleAsk asks the server at base the question of a.
func oracleAsk(base string, a oracleAnswer) (answer, error) {
	q := url.Values{}
	for k, v := range a.Query {
		q.Set(k, v)
	}
	res, err := http.Get(base + a.Endpoint + "?" + q.Encode())
	if err != nil {
		return answer{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return answer{res.StatusCode, res.Header, b}, err
}

// oracleDiff lists how got differs from h5grove's answer a, but at the
// JSON paths ignore matches.
func oracleDiff(a oracleAnswer, got answer, ignore map[string]string) []string {
	id := a.id()
	if got.status != a.Status {
		return []string{fmt.Sprintf("%s: status %d, h5grove %d: %.300s", id, got.status, a.Status, got.body)}
	}
	switch {
	case a.JSON != nil:
		want, err := decodeJSONNumbers(a.JSON)
		if err != nil {
			return []string{fmt.Sprintf("%s: oracle JSON: %v", id, err)}
		}
		g, err := decodeJSONNumbers(got.body)
		if err != nil {
			return []string{fmt.Sprintf("%s: %v: %.300s", id, err, got.body)}
		}
		if a.Status != 200 {
			return messageDiff(id, g)
		}
		var out []string
		jsonDiff(id, "", g, want, ignore, &out)
		return out
	case a.Bytes != nil:
		sum := sha256.Sum256(got.body)
		if len(got.body) != *a.Bytes || hex.EncodeToString(sum[:]) != a.SHA256 {
			return []string{fmt.Sprintf("%s: %d bytes (sha256 %x…), h5grove %d bytes (%s…)", id, len(got.body), sum[:4], *a.Bytes, a.SHA256[:8])}
		}
	}
	return nil
}

// answeredDiff checks that got is an answer: 200, or an error
// {"message": …} (a client error, or a server error naming what lindi-go
// does not read) rather than a broken connection or another body.
func answeredDiff(id string, got answer) []string {
	if got.status == http.StatusOK {
		return nil
	}
	if got.status < 400 {
		return []string{fmt.Sprintf("%s: status %d: %.300s", id, got.status, got.body)}
	}
	g, err := decodeJSONNumbers(got.body)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v: %.300s", id, err, got.body)}
	}
	return messageDiff(id, g)
}

// messageDiff checks that an error answer is h5grove's {"message": text}.
func messageDiff(id string, g any) []string {
	m, ok := g.(map[string]any)
	if _, isText := m["message"].(string); !ok || len(m) != 1 || !isText {
		return []string{fmt.Sprintf("%s: error answer %v is not {\"message\": …}", id, g)}
	}
	return nil
}

// decodeJSONNumbers decodes JSON keeping numbers as json.Number.
func decodeJSONNumbers(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// jsonDiff appends to out where got differs from want, at the JSON path
// at, but at the paths ignore matches.
func jsonDiff(id, at string, got, want any, ignore map[string]string, out *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range w {
				if !yield(k) {
					return
				}
			}
			for k := range g {
				if _, ok := w[k]; !ok && !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			if ignored(at+"."+k, ignore) {
				continue
			}
			gv, gok := g[k]
			wv, wok := w[k]
			if !gok || !wok {
				*out = append(*out, fmt.Sprintf("%s: %s.%s: %s, h5grove %s", id, at, k, short(gv, gok), short(wv, wok)))
				continue
			}
			jsonDiff(id, at+"."+k, gv, wv, ignore, out)
		}
		return
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			break
		}
		for i := range w {
			jsonDiff(id, at+"["+strconv.Itoa(i)+"]", g[i], w[i], ignore, out)
		}
		return
	case json.Number:
		if g, ok := got.(json.Number); ok && sameNumber(g, w) {
			return
		}
	default:
		if fmt.Sprint(got) == fmt.Sprint(want) && fmt.Sprintf("%T", got) == fmt.Sprintf("%T", want) {
			return
		}
	}
	*out = append(*out, fmt.Sprintf("%s: %s: %s, h5grove %s", id, at, short(got, true), short(want, true)))
}

// ignored reports whether the JSON path at matches a pattern of ignore.
func ignored(at string, ignore map[string]string) bool {
	for p := range ignore {
		if globMatch(p, at) {
			return true
		}
	}
	return false
}

// short is v as JSON, cut to a line.
func short(v any, present bool) string {
	if !present {
		return "absent"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	b := bytes.TrimSpace(buf.Bytes())
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// sameNumber tells whether two JSON numbers are the same value: integers
// exactly, others as the float64 they parse to.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	ai, aok := new(big.Int).SetString(string(a), 10)
	bi, bok := new(big.Int).SetString(string(b), 10)
	if aok && bok {
		return ai.Cmp(bi) == 0
	}
	af, err1 := strconv.ParseFloat(string(a), 64)
	bf, err2 := strconv.ParseFloat(string(b), 64)
	return err1 == nil && err2 == nil && (af == bf || math.IsNaN(af) && math.IsNaN(bf))
}
