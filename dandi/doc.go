// Package dandi reads the DANDI Archive's REST API: it parses the
// addresses of dandisets, versions, folders and assets (dandi:// addresses,
// API URLs, the archive's web pages: ParseAddress), lists a dandiset's or a
// folder's assets lazily across the API's pages (Assets, with WithGlob),
// and finds one asset (Lookup).
//
// It registers a source.Locator, so that h5.Open, nwb.Open and the lindi
// command open a DANDI asset's address as its content: a blob (HDF5, NWB)
// lazily through the API's download redirect, a Zarr asset through the S3
// URL of its contentUrl, or, when a service of precomputed LINDI files is
// named (PrecomputedEnv, source.WithPrecomputed), the asset's precomputed
// LINDI file in one request, used only when every ref in it names the
// asset's own blob; otherwise the blob opens as usual and source.WithWarn's
// callback gets one line saying why.
//
// # Instances and keys
//
// Instances are dandi-cli's (Instances); InstancesEnv or WithInstance adds
// one or points one at a test server on this machine. The API key of an
// instance (KeyEnv: DANDI_API_KEY for the archive, DANDI_SANDBOX_API_KEY
// for the sandbox) is sent as "Authorization: token KEY" to that
// instance's API host only, over https or over http to a loopback host:
// never to S3, the precomputed service or any other host.
//
// # Requests
//
// API answers are cached for the process (by URL and key), concurrent
// identical requests share one answer, and failures are retried as byte
// reads are (source.DefaultRetry). Listing a folder remembers its assets,
// so opening each asset listed costs no further lookup: ranging over
// Assets and opening each is one request per listing page, not one per
// asset.
//
// # Concurrency
//
// Every function is safe for concurrent use.
//
// # Errors
//
// Errors are one line naming what was missing or refused: ErrNotFound for
// a dandiset, version, folder or asset the instance does not have,
// ErrUnauthorized for a dandiset it refuses without a key (naming the
// key's environment variable), ErrFolder for a folder opened as an asset,
// ErrResponse for an answer not in the API's shape.
package dandi
