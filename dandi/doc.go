// Package dandi reads the DANDI Archive's REST API: it parses the
// addresses of dandisets, versions, folders and assets (dandi:// addresses,
// API URLs, the archive's web pages: ParseAddress), lists a dandiset's or a
// folder's assets lazily across the API's pages (Assets, with WithGlob),
// and finds one asset (Lookup).
//
// A Client holds what the package knows: instances, API keys, the HTTP
// client, the service of precomputed LINDI files, and the caches of the
// API's answers; the package functions are those of Default, which takes
// everything from the environment.
//
// Importing the package (for its effect alone: import _
// "github.com/lindigo/lindi/dandi") registers Default's source.Locator, so
// that h5.Open, nwb.Open and the lindi command open a DANDI asset's
// address as its content: a blob (HDF5, NWB) lazily through the API's
// download redirect, a Zarr asset through the S3 URL of its contentUrl, or,
// when a service of precomputed LINDI files is named (PrecomputedEnv,
// WithPrecomputed), the asset's precomputed LINDI file in one request, used
// only when every ref in it names the asset's own blob; otherwise the blob
// opens as usual and source.WithWarn's callback gets one line saying why.
// source.WithLocator(client.Locate) opens through another client.
//
// # Instances and keys
//
// Instances are dandi-cli's (Instances), one table; InstancesEnv or
// WithInstance adds one or points one at a test server on this machine.
// The API key of an instance (KeyEnv: DANDI_API_KEY for the archive,
// DANDI_SANDBOX_API_KEY for the sandbox, LINC_API_KEY, EMBER_API_KEY, …)
// is sent as "Authorization: token KEY" to that instance's API host only,
// over https or over http to a loopback host: never to another instance,
// S3, the precomputed service or any other host, redirects included.
//
// # Requests
//
// A client caches the API's answers (by URL and key); concurrent identical
// requests share one answer. Requests are bounded as byte reads are, by
// one timeout (source.TimeoutEnv, WithTimeout): no connection, answer or
// byte for 20 s by default, 2 minutes a request; failures are retried by
// the same loop (source.Retry.Do) under the same policy. Listing a folder
// remembers its assets, so opening each asset listed costs no further
// lookup: ranging over Assets and opening each is one request per listing
// page, not one per asset. A listing that does not end (a page that comes
// again, more results or pages than it declares) fails with ErrResponse.
//
// # Concurrency
//
// Every function and Client method is safe for concurrent use.
//
// # Errors
//
// Errors are one line naming what was missing or refused: ErrNotFound for
// a dandiset, version, folder or asset the instance does not have,
// ErrUnauthorized for a dandiset it refuses without a key (naming the
// key's environment variable), ErrFolder for a folder opened as an asset,
// ErrResponse for an answer not in the API's shape.
package dandi
