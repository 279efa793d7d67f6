// Package h5grove serves files that h5 reads over h5grove's HTTP API, so that
// h5web (the React viewer of myHDF5 and JupyterLab) browses them: LINDI JSON,
// tar and directories, Zarr v2 and v3, hdmf-zarr and HDF5, local or remote.
//
// The API is the one h5grove's documentation (docs/api.md, docs/_static/api.yaml
// in silx-kit/h5grove) describes: /attr, /data, /meta, /paths
// and /stats take the query parameters file, path, attr_keys, selection,
// format (json, bin, csv, npy, tiff), dtype (origin, safe), flatten and
// resolve_links, and answer with the same JSON shapes. Errors are a JSON
// object {"message": …} with status 403 (a file outside the served ones),
// 404 (no such file or path), 405 (a method other than GET, HEAD or OPTIONS),
// 413 (a response over the size limit), 422 (a bad query argument, or an
// entity of the wrong kind for the endpoint), 503 (the memory budget is
// taken: Retry-After says when to try again) or 500. Every /data answer
// carries its Content-Length, as h5grove's do. A browser asking for "/"
// (Accept: text/html) gets the h5web page embedded in this package,
// configured to call the same server; another client gets a line saying so.
//
// A Dir's files are untrusted: every file they make the server open (LINDI
// refs, external links, store members) is opened through an os.Root of the
// directory, and remote refs are refused unless WithRemote. Requests from
// another origin than the server's (WithAllowOrigin), or naming another
// host than a loopback one or the address served (WithAllowHost), are
// refused with 403. The reads of all requests share a memory budget
// (WithBudget); Serve bounds connections and idle time.
//
// For an HDF5 file the answers are those of h5grove's own app (h5py and
// orjson): the types of datasets, committed datatypes and attributes are
// their HDF5 types (h5.Type), filters are the HDF5 pipeline, float32 values
// are written as their shortest decimal, references as h5py's text of
// them, and bin and npy send a big-endian dataset's elements as stored;
// TestOracle compares every answer with testdata/oracle.json, h5grove's
// own. Formats that store no HDF5 type (LINDI, Zarr) describe attributes
// by their values (every integer int64, every float float64) and filters
// by their codecs.
//
// A Server is safe for concurrent use; its open files are shared by requests
// and closed by Close. Which files it serves is a Source: Dir (every file
// under a directory, found at request time, none outside it) or Files (a
// fixed list of names). Locate errors wrap ErrForbidden or ErrNoFile.
package h5grove
