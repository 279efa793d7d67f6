package main

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain runs main itself when asked to by TestHeadClosesPipe, which
// needs a real process to see what a closed pipe does to it.
func TestMain(m *testing.M) {
	if os.Getenv("LINDI_TEST_RUN_MAIN") == "1" {
		args := os.Getenv("LINDI_TEST_ARGS")
		if sep := "\x1f"; strings.Contains(args, sep) { // arguments with spaces
			os.Args = append([]string{"lindi"}, strings.Split(strings.TrimSuffix(args, sep), sep)...)
		} else {
			os.Args = append([]string{"lindi"}, strings.Fields(args)...)
		}
		main()
	}
	os.Exit(m.Run())
}

// TestHeadClosesPipe: "lindi cat … | head -2" ends with status 0 and says
// nothing, although its reader went away mid-output.
func TestHeadClosesPipe(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "LINDI_TEST_RUN_MAIN=1",
		"LINDI_TEST_ARGS=cat "+filepath.Join(fixtures, "fixture.lindi.json")+" acquisition/ElectricalSeries/data")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	for range 2 { // head -2
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
	}
	out.Close()
	err = cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) || err != nil || stderr.Len() != 0 {
		t.Fatalf("lindi cat | head -2: %v, stderr %q; want status 0 and nothing", err, stderr.String())
	}
}
