// Package ptestmain runs the tests of a package whose tests run Beam
// pipelines in this process.
package ptestmain

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
)

// Main runs m as ptest.Main does, with TMPDIR pointing at a directory of
// its own that is removed at the end: Beam's runner leaves an empty
// beamloopbackworker-* file in the temporary directory at every run whose
// worker is this process, one per pipeline a test runs.
func Main(m *testing.M) {
	dir, err := os.MkdirTemp("", "beamtest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("TMPDIR", dir)
	code := ptest.MainRet(m)
	os.RemoveAll(dir)
	os.Exit(code)
}
