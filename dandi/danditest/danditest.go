// Package danditest runs a stand-in DANDI Archive on loopback for tests: a
// REST API whose answers have the real API's shapes (dandi-archive's
// serializers, as dandi-cli's dandiapi.py reads them), an "S3" bucket that
// serves the blobs with byte ranges and the Zarr assets' objects, and a
// service of precomputed LINDI files. Listings (assets and versions) come
// in small pages; an embargoed dandiset answers 401 without the API key
// and 403 with another; /download/ answers 302 to the bucket with a
// signature the bucket checks, as a presigned S3 URL. SetFault makes it
// misbehave as hostile or broken servers do: listings whose next links
// loop or outgrow their count, an API and bucket that never answer or that
// drip their answers a byte at a time.
//
// Server.Setenv points the instance named Instance at the server (through
// dandi.InstancesEnv) and sets its API key's variable, so that dandi://
// addresses, h5.Open and the lindi command reach it. A Server is safe for
// concurrent use.
package danditest

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lindigo/lindi/dandi"
)

// Instance is the instance name a Server stands in for: dandi-cli's local
// test instance.
const Instance = "dandi-api-local-docker-tests"

// Key is the API key that opens the embargoed dandisets.
const Key = "danditest-key"

// Placeholders in Asset.Precomputed, replaced as it is served.
const (
	BlobURL     = "$BLOB_URL$"     // the asset's S3 URL
	DownloadURL = "$DOWNLOAD_URL$" // the asset's API download URL
)

// DefaultPageSize is the most assets a listing page holds, whatever
// page_size asks: small, so that listings span pages.
const DefaultPageSize = 3

// Asset is an asset of a Dandiset: a blob (Data) or a Zarr store (Zarr).
type Asset struct {
	Path string
	Data []byte            // a blob's bytes
	Zarr map[string][]byte // a Zarr asset's objects by key (".zgroup", "x/.zarray", "x/0")
	// Precomputed is the precomputed service's LINDI file of the asset, with
	// BlobURL and DownloadURL standing for its URLs; nil answers 404.
	Precomputed []byte
	// URL, when set, is where a blob is served instead of the bucket (a
	// benchmark's latency server), or where a Zarr asset's store is (Zarr
	// then empty: a store on a local S3 server): /download/ redirects there
	// and contentUrl lists it. Size is then its size; Data is not used.
	URL  string
	Size int64
}

// Dandiset is a dandiset of the stand-in archive.
type Dandiset struct {
	ID        string // six digits
	Embargoed bool
	Draft     []Asset
	Published map[string][]Asset // by version, such as "0.230101.1200"
}

// Server is a running stand-in archive.
type Server struct {
	API         *httptest.Server // serves /api/…
	S3          *httptest.Server // serves /blobs/… and /zarr/…
	Precomputed *httptest.Server // serves /INSTANCE/dandisets/ID/assets/ASSET_ID/nwb.lindi.json
	PageSize    int              // the most assets a page holds (DefaultPageSize)
	// Latency delays every answer of the three servers (for benchmarks);
	// set it before the first request.
	Latency time.Duration

	sets    map[string]*Dandiset
	assets  map[string]*stored // by asset ID
	mu      sync.Mutex
	hits    []string // API paths requested, with the query
	leaked  []string // Authorization headers S3 or the precomputed service saw
	created time.Time
	fault   Fault
	every   time.Duration // Drip's interval
}

// Fault makes a Server misbehave as hostile or broken servers do, for the
// tests of what a client does then (SetFault).
type Fault int

// The faults a Server can have.
const (
	// NoFault serves as the archive does.
	NoFault Fault = iota
	// LoopSelf gives every listing page (assets or versions) a next link
	// to itself.
	LoopSelf
	// LoopPair gives the second page of a listing a next link back to the
	// first, which points to the second.
	LoopPair
	// Overcount goes on past a listing's last page: each page points to
	// one more, holding the last page's results again, past the count it
	// declares.
	Overcount
	// Silent accepts every request of the API and the bucket and never
	// answers, not even headers.
	Silent
	// Drip sends the API's and the bucket's answers one byte at a time,
	// one every interval of SetFault.
	Drip
)

// SetFault makes the server misbehave as f says from now on; every is
// Drip's interval between bytes.
func (s *Server) SetFault(f Fault, every time.Duration) {
	s.mu.Lock()
	s.fault, s.every = f, every
	s.mu.Unlock()
}

func (s *Server) faulty() (Fault, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fault, s.every
}

// stored is an asset as served.
type stored struct {
	Asset
	id, blob, zarr    string
	dandiset, version string
}

// New starts a stand-in archive serving sets, closed when tb ends.
func New(tb testing.TB, sets ...Dandiset) *Server {
	tb.Helper()
	s := &Server{PageSize: DefaultPageSize, sets: map[string]*Dandiset{}, assets: map[string]*stored{},
		created: time.Date(2023, 1, 1, 12, 0, 0, 0, time.UTC)}
	for i := range sets {
		d := &sets[i]
		s.sets[d.ID] = d
		s.store(d, "draft", d.Draft)
		for v, as := range d.Published {
			s.store(d, v, as)
		}
	}
	s.API = httptest.NewServer(s.slow(s.broken(s.serveAPI)))
	s.S3 = httptest.NewServer(s.slow(s.broken(s.serveS3)))
	s.Precomputed = httptest.NewServer(s.slow(s.servePrecomputed))
	tb.Cleanup(func() { s.API.Close(); s.S3.Close(); s.Precomputed.Close() })
	return s
}

func (s *Server) store(d *Dandiset, version string, as []Asset) {
	for _, a := range as {
		st := &stored{Asset: a, id: uuid("asset", d.ID, version, a.Path), dandiset: d.ID, version: version}
		if a.Zarr != nil {
			st.zarr = uuid("zarr", d.ID, version, a.Path)
		} else {
			// Blobs are shared by content, as the archive's are, but never
			// between an embargoed dandiset and a public one: the bucket
			// checks an embargoed blob's signature, and the same bytes in a
			// public dandiset must stay readable without one.
			st.blob = uuid("blob", strconv.FormatBool(d.Embargoed), a.URL, string(a.Data))
		}
		s.assets[st.id] = st
	}
}

// slow delays h's answers by Latency.
func (s *Server) slow(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.Latency > 0 {
			select {
			case <-time.After(s.Latency):
			case <-r.Context().Done():
				return
			}
		}
		h(w, r)
	}
}

// broken applies the Silent and Drip faults to h.
func (s *Server) broken(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		switch f, every := s.faulty(); f {
		case Silent:
			<-r.Context().Done()
		case Drip:
			rec := httptest.NewRecorder()
			h(rec, r)
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			t := time.NewTicker(every)
			defer t.Stop()
			for _, b := range rec.Body.Bytes() {
				if _, err := w.Write([]byte{b}); err != nil {
					return
				}
				w.(http.Flusher).Flush()
				select {
				case <-t.C:
				case <-r.Context().Done():
					return
				}
			}
		default:
			h(w, r)
		}
	}
}

// uuid makes a stable UUID from parts.
func uuid(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	x := fmt.Sprintf("%x", h[:16])
	return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:32]
}

// URL is the API URL of the server, for dandi.WithInstance.
func (s *Server) URL() string { return s.API.URL + "/api" }

// Env is the value of dandi.InstancesEnv that points Instance at the
// server.
func (s *Server) Env() string { return Instance + "=" + s.URL() }

// Setenv points Instance at the server for the rest of the test, and sets
// its API key's variable to key ("" leaves it unset).
func (s *Server) Setenv(tb testing.TB, key string) {
	tb.Helper()
	tb.Setenv(dandi.InstancesEnv, s.Env())
	tb.Setenv(dandi.KeyEnv(Instance), key)
}

// PrecomputedURL is the base URL of the precomputed LINDI service, for
// dandi.PrecomputedEnv.
func (s *Server) PrecomputedURL() string { return s.Precomputed.URL }

// AssetID returns the ID of the asset at path in the dandiset's version.
func (s *Server) AssetID(dandiset, version, path string) string {
	return uuid("asset", dandiset, version, path)
}

// Hits returns the API requests (path and query) made so far whose path
// starts with prefix (after /api).
func (s *Server) Hits(prefix string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, h := range s.hits {
		if strings.HasPrefix(h, prefix) {
			out = append(out, h)
		}
	}
	return out
}

// Leaked returns the Authorization headers that reached the bucket or the
// precomputed service: an API key that went where it must not.
func (s *Server) Leaked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.leaked)
}

// s3URL is where the asset's bytes are: the bucket's or Asset.URL.
func (s *Server) s3URL(st *stored) string {
	if st.URL != "" {
		return st.URL
	}
	return s.S3.URL + st.s3Path()
}

// s3Path is where the bucket serves an asset.
func (st *stored) s3Path() string {
	if st.zarr != "" {
		return "/zarr/" + st.zarr + "/"
	}
	return "/blobs/" + st.blob[:3] + "/" + st.blob[3:6] + "/" + st.blob
}

func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/api/")
	s.mu.Lock()
	s.hits = append(s.hits, "/"+rest+query(r))
	s.mu.Unlock()
	seg := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	switch {
	case !ok || r.Method != http.MethodGet && r.Method != http.MethodHead:
		notFound(w)
	case len(seg) >= 2 && seg[0] == "assets":
		s.serveAsset(w, r, seg[1:])
	case len(seg) >= 2 && seg[0] == "dandisets":
		s.serveDandiset(w, r, seg[1:])
	default:
		notFound(w)
	}
}

func query(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return ""
	}
	return "?" + r.URL.RawQuery
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"detail": "Not found."})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// allowed answers 401 or 403 for an embargoed dandiset without the key.
func (s *Server) allowed(w http.ResponseWriter, r *http.Request, d *Dandiset) bool {
	if !d.Embargoed {
		return true
	}
	switch r.Header.Get("Authorization") {
	case "token " + Key:
		return true
	case "":
		writeJSON(w, http.StatusUnauthorized, map[string]any{"detail": "Authentication credentials were not provided."})
	default:
		writeJSON(w, http.StatusForbidden, map[string]any{"detail": "You do not have permission to perform this action."})
	}
	return false
}

func (s *Server) serveAsset(w http.ResponseWriter, r *http.Request, seg []string) {
	st := s.assets[seg[0]]
	if st == nil || len(seg) > 2 || len(seg) == 2 && seg[1] != "download" {
		notFound(w)
		return
	}
	if !s.allowed(w, r, s.sets[st.dandiset]) {
		return
	}
	if len(seg) == 2 {
		s.download(w, r, st)
		return
	}
	writeJSON(w, http.StatusOK, s.metadata(st))
}

// download redirects to the bucket, signed as a presigned URL is.
func (s *Server) download(w http.ResponseWriter, r *http.Request, st *stored) {
	if st.zarr != "" {
		notFound(w)
		return
	}
	if st.URL != "" {
		http.Redirect(w, r, st.URL, http.StatusFound)
		return
	}
	http.Redirect(w, r, s.S3.URL+st.s3Path()+"?X-Amz-Signature="+sign(st.blob), http.StatusFound)
}

func sign(blob string) string { return uuid("signature", blob) }

func (s *Server) serveDandiset(w http.ResponseWriter, r *http.Request, seg []string) {
	d := s.sets[seg[0]]
	if d == nil {
		notFound(w)
		return
	}
	if !s.allowed(w, r, d) {
		return
	}
	switch {
	case len(seg) == 1:
		writeJSON(w, http.StatusOK, s.dandisetJSON(d))
	case len(seg) == 2 && seg[1] == "versions":
		vs := s.versions(d)
		if r.URL.Query().Get("order") == "-created" {
			slices.Reverse(vs)
		}
		s.page(w, r, len(vs), func(i int) any { return s.versionJSON(d, vs[i]) })
	case len(seg) >= 3 && seg[1] == "versions":
		s.serveVersion(w, r, d, seg[2], seg[3:])
	default:
		notFound(w)
	}
}

func (s *Server) versions(d *Dandiset) []string {
	vs := []string{"draft"}
	for v := range d.Published {
		vs = append(vs, v)
	}
	slices.Sort(vs[1:])
	return vs
}

func (s *Server) serveVersion(w http.ResponseWriter, r *http.Request, d *Dandiset, v string, seg []string) {
	if !slices.Contains(s.versions(d), v) {
		notFound(w)
		return
	}
	switch {
	case len(seg) == 0:
		writeJSON(w, http.StatusOK, s.versionMeta(d, v))
	case len(seg) == 1 && seg[0] == "info":
		info := s.versionJSON(d, v)
		info["metadata"] = s.versionMeta(d, v)
		writeJSON(w, http.StatusOK, info)
	case len(seg) == 1 && seg[0] == "assets":
		s.list(w, r, d, v)
	case len(seg) >= 2 && len(seg) <= 3 && seg[0] == "assets":
		st := s.assets[seg[1]]
		if st == nil || st.dandiset != d.ID || st.version != v || len(seg) == 3 && seg[2] != "download" {
			notFound(w)
			return
		}
		if len(seg) == 3 {
			s.download(w, r, st)
			return
		}
		writeJSON(w, http.StatusOK, s.metadata(st))
	default:
		notFound(w)
	}
}

func (s *Server) inVersion(d *Dandiset, v string) []*stored {
	var out []*stored
	for _, st := range s.assets {
		if st.dandiset == d.ID && st.version == v {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b *stored) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// list answers the paginated asset list: path (a prefix, ignoring case, as
// the archive's filter), glob, order, page, page_size and metadata.
func (s *Server) list(w http.ResponseWriter, r *http.Request, d *Dandiset, v string) {
	q := r.URL.Query()
	var glob *regexp.Regexp
	if g := q.Get("glob"); g != "" {
		glob = regexp.MustCompile("(?is)^" + strings.NewReplacer(`\*`, ".*", `\?`, ".").Replace(regexp.QuoteMeta(g)) + "$")
	}
	prefix := strings.ToLower(q.Get("path"))
	var match []*stored
	for _, st := range s.inVersion(d, v) {
		if strings.HasPrefix(strings.ToLower(st.Path), prefix) && (glob == nil || glob.MatchString(st.Path)) {
			match = append(match, st)
		}
	}
	meta := q.Get("metadata") == "1" || q.Get("metadata") == "true"
	s.page(w, r, len(match), func(i int) any {
		e := s.entry(match[i])
		if meta {
			e["metadata"] = s.metadata(match[i])
		}
		return e
	})
}

// page answers one page of a paginated listing of n results (DandiPagination:
// page and page_size, count, next, previous, results), item(i) giving the
// i-th, with the listing faults of SetFault.
func (s *Server) page(w http.ResponseWriter, r *http.Request, n int, item func(i int) any) {
	q := r.URL.Query()
	size := s.PageSize
	if k, err := strconv.Atoi(q.Get("page_size")); err == nil && k > 0 && k < size {
		size = k
	}
	pg := 1
	if k, err := strconv.Atoi(q.Get("page")); err == nil {
		pg = k
	}
	fault, _ := s.faulty()
	last := max((n+size-1)/size, 1)
	if pg < 1 || pg > last && fault != Overcount {
		writeJSON(w, http.StatusNotFound, map[string]any{"detail": "Invalid page."})
		return
	}
	lo, hi := (min(pg, last)-1)*size, min(min(pg, last)*size, n)
	results := []any{}
	for i := lo; i < hi; i++ {
		results = append(results, item(i))
	}
	link := func(p int) string {
		q.Set("page", strconv.Itoa(p))
		return s.API.URL + r.URL.Path + "?" + q.Encode()
	}
	var next, prev any
	switch {
	case fault == LoopSelf:
		next = s.API.URL + r.URL.RequestURI()
	case fault == LoopPair && pg == 2:
		next = link(1)
	case fault == Overcount || hi < n:
		next = link(pg + 1)
	}
	if pg > 1 {
		prev = link(pg - 1)
	}
	writeJSON(w, http.StatusOK, map[string]any{"count": n, "next": next, "previous": prev, "results": results})
}

func (s *Server) time(st *stored) string {
	return s.created.Add(time.Duration(len(st.Path)) * time.Minute).Format(time.RFC3339Nano)
}

// entry is an asset in a listing (AssetListSerializer).
func (s *Server) entry(st *stored) map[string]any {
	e := map[string]any{"asset_id": st.id, "blob": nil, "zarr": nil, "path": st.Path,
		"size": st.size(), "created": s.time(st), "modified": s.time(st)}
	if st.zarr != "" {
		e["zarr"] = st.zarr
	} else {
		e["blob"] = st.blob
	}
	return e
}

func (st *stored) size() int {
	if st.URL != "" {
		return int(st.Size)
	}
	if st.Zarr == nil {
		return len(st.Data)
	}
	n := 0
	for _, b := range st.Zarr {
		n += len(b)
	}
	return n
}

// metadata is an asset's metadata (the dandischema Asset model).
func (s *Server) metadata(st *stored) map[string]any {
	format, digest := "application/x-nwb", map[string]any{"dandi:dandi-etag": fmt.Sprintf("%x-1", sha256.Sum256(st.Data))}
	if st.Zarr != nil {
		format, digest = "application/x-zarr", map[string]any{"dandi:dandi-zarr-checksum": uuid("zarr-checksum", st.zarr)}
	}
	return map[string]any{
		"@context":       "https://raw.githubusercontent.com/dandi/schema/master/releases/0.6.8/context.json",
		"schemaKey":      "Asset",
		"schemaVersion":  "0.6.8",
		"id":             "dandiasset:" + st.id,
		"identifier":     st.id,
		"path":           st.Path,
		"contentSize":    st.size(),
		"encodingFormat": format,
		"digest":         digest,
		"contentUrl":     []string{s.URL() + "/assets/" + st.id + "/download/", s.s3URL(st)},
		"dateModified":   s.time(st),
		"access":         []any{map[string]any{"schemaKey": "AccessRequirements", "status": "dandi:OpenAccess"}},
	}
}

func (s *Server) dandisetJSON(d *Dandiset) map[string]any {
	status := "OPEN"
	if d.Embargoed {
		status = "EMBARGOED"
	}
	vs := s.versions(d)
	var recent any
	if len(vs) > 1 {
		recent = s.versionJSON(d, vs[len(vs)-1])
	}
	return map[string]any{"identifier": d.ID, "created": s.created.Format(time.RFC3339Nano),
		"modified": s.created.Format(time.RFC3339Nano), "contact_person": "Doe, Jane",
		"embargo_status": status, "star_count": 0, "is_starred": false,
		"draft_version": s.versionJSON(d, "draft"), "most_recent_published_version": recent}
}

// versionJSON is a version object (VersionSerializer).
func (s *Server) versionJSON(d *Dandiset, v string) map[string]any {
	n, size := 0, 0
	for _, st := range s.inVersion(d, v) {
		n, size = n+1, size+st.size()
	}
	status := "Valid"
	if v != "draft" {
		status = "Published"
	}
	created, modified := s.versionTimes(v)
	return map[string]any{"version": v, "name": "Dandiset " + d.ID, "asset_count": n, "size": size,
		"status": status, "created": created.Format(time.RFC3339Nano), "modified": modified.Format(time.RFC3339Nano),
		"dandiset": map[string]any{"identifier": d.ID, "created": s.created.AddDate(0, 0, -30).Format(time.RFC3339Nano),
			"modified": s.created.Format(time.RFC3339Nano), "contact_person": "Doe, Jane",
			"embargo_status": map[bool]string{false: "OPEN", true: "EMBARGOED"}[d.Embargoed]}}
}

// versionTimes are when a version was created and last modified: the
// draft with the dandiset, 30 days before the server's time, and modified
// then; a published version at the time its ID says (0.YYMMDD.HHMM), as
// the archive names them.
func (s *Server) versionTimes(v string) (created, modified time.Time) {
	if t, err := time.Parse("060102.1504", strings.TrimPrefix(v, "0.")); err == nil {
		return t, t
	}
	return s.created.AddDate(0, 0, -30), s.created
}

func (s *Server) versionMeta(d *Dandiset, v string) map[string]any {
	return map[string]any{"schemaKey": "Dandiset", "id": "DANDI:" + d.ID + "/" + v, "identifier": "DANDI:" + d.ID,
		"name": "Dandiset " + d.ID, "version": v, "url": "https://dandiarchive.org/dandiset/" + d.ID + "/" + v}
}

// serveS3 serves blobs with byte ranges (signed URLs only for an embargoed
// dandiset's) and Zarr objects.
func (s *Server) serveS3(w http.ResponseWriter, r *http.Request) {
	s.noteAuth(r)
	p := r.URL.Path
	for _, st := range s.assets {
		base := st.s3Path()
		switch {
		case st.URL != "":
		case st.zarr == "" && p == base:
			if s.sets[st.dandiset].Embargoed && r.URL.Query().Get("X-Amz-Signature") != sign(st.blob) {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, "<Error><Code>AccessDenied</Code></Error>")
				return
			}
			http.ServeContent(w, r, "", s.created, bytes.NewReader(st.Data))
			return
		case st.zarr != "" && strings.HasPrefix(p, base):
			if b, ok := st.Zarr[p[len(base):]]; ok {
				http.ServeContent(w, r, "", s.created, bytes.NewReader(b))
				return
			}
		}
	}
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, "<Error><Code>NoSuchKey</Code></Error>")
}

func (s *Server) noteAuth(r *http.Request) {
	if a := r.Header.Get("Authorization"); a != "" {
		s.mu.Lock()
		s.leaked = append(s.leaked, a)
		s.mu.Unlock()
	}
}

func (s *Server) servePrecomputed(w http.ResponseWriter, r *http.Request) {
	s.noteAuth(r)
	seg := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(seg) != 6 || seg[1] != "dandisets" || seg[3] != "assets" || seg[5] != "nwb.lindi.json" {
		http.NotFound(w, r)
		return
	}
	st := s.assets[seg[4]]
	if st == nil || st.dandiset != seg[2] || st.Precomputed == nil {
		http.NotFound(w, r)
		return
	}
	doc := strings.NewReplacer(BlobURL, s.s3URL(st), DownloadURL, s.URL()+"/assets/"+st.id+"/download/").Replace(string(st.Precomputed))
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprint(w, doc)
}
