// Package docs holds no code: its directory is the user guide (the topic
// pages README.md links to), and its tests keep the guide true: every
// relative link in README.md and docs/*.md names a file of the repository,
// the Go examples the pages show are the examples go test runs, and every
// import of the module's packages is one the layer table of DESIGN.md §2
// allows (TestLayers).
package docs
