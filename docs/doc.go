// Package docs holds no code: its directory is the user guide (the topic
// pages README.md links to), and its tests keep the guide true: every
// relative link in README.md and docs/*.md names a file of the repository,
// and the Go examples the pages show are the examples go test runs.
package docs
