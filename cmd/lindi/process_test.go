package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runProcess runs lindi as its own process (the test binary running main),
// as a user's shell would, and returns its exit status and output.
func runProcess(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINDI_TEST_RUN_MAIN=1", "LINDI_TEST_ARGS="+strings.Join(append(args, ""), "\x1f"))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// TestFirstContactInProcess runs what a new user tripped on (issue 18)
// through a real process: exit status, stdout and stderr as a shell sees
// them.
func TestFirstContactInProcess(t *testing.T) {
	tables := filepath.Join("..", "..", "testdata", "nwb", "tables.nwb")
	lindiJSON := filepath.Join(fixtures, "fixture.lindi.json")
	for _, tc := range []struct {
		name        string
		args        []string
		code        int
		out, errOut string // parts of stdout and of stderr
		noOut       bool
	}{
		{"nwb -h", []string{"nwb", "-h"}, 0, "lindi nwb", "", false},
		{"nwb --help", []string{"nwb", "--help"}, 0, "lindi nwb", "", false},
		{"help table", []string{"help", "table"}, 0, "lindi table", "", false},
		{"usage error shows one command", []string{"cat", lindiJSON}, 2, "", "lindi cat", true},
		{"version", []string{"--version"}, 0, "lindi ", "", false},
		{"float attribute", []string{"cat", tables, "acquisition/ElectricalSeries/starting_time@rate"}, 0, "30000.0", "", false},
		{"table json failing writes nothing", []string{"table", "-f", "json", tables, "nowhere"}, 1, "", "lindi: ", true},
		{"info on a compound with references", []string{"info", tables, "units"}, 0, "{", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runProcess(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.errOut) || tc.noOut && stdout != "" {
				t.Errorf("exit %d\nstdout %q\nstderr %q\nwant exit %d, stdout with %q, stderr with %q", code, stdout, stderr, tc.code, tc.out, tc.errOut)
			}
			if tc.name == "usage error shows one command" && strings.Contains(stderr, "lindi table") {
				t.Errorf("a usage error of cat shows other commands:\n%s", stderr)
			}
		})
	}
}
