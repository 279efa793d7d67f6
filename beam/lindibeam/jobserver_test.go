package lindibeam

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/lindigo/lindi/dandi/danditest"
)

// jobServerEnv, set in the environment of a re-run of this test binary,
// makes it a prism job server on that port (what the SDK's cmd/prism main
// does, without its web UI), until killed.
const jobServerEnv = "LINDIBEAM_TEST_PRISM_PORT"

func init() {
	port := os.Getenv(jobServerEnv)
	if port == "" {
		return
	}
	p, err := strconv.Atoi(port)
	if err != nil {
		os.Exit(3)
	}
	if _, err := prism.CreateJobServer(context.Background(), prism.Options{Port: p}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	select {}
}

// freePort returns a port no one listens on, for the job server to take.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startJobServer starts a prism job server in a re-run of this test
// binary, killed when t ends, and returns its endpoint.
func startJobServer(t *testing.T) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), jobServerEnv+"="+strconv.Itoa(port))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("job server: %s", logs.String())
		}
	})
	endpoint := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", endpoint)
		if err == nil {
			c.Close()
			return endpoint
		}
		if i == 600 {
			t.Fatalf("the job server did not listen on %s", endpoint)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runUniversal runs p on the job server at endpoint with the universal
// runner and LOOPBACK workers, the path a job service of Flink, Spark or
// Dataflow takes (job API, artifact staging, the Fn API to SDK workers).
func runUniversal(t *testing.T, endpoint string, p *beam.Pipeline) {
	t.Helper()
	savedEndpoint, savedEnv := *jobopts.Endpoint, *jobopts.EnvironmentType
	*jobopts.Endpoint, *jobopts.EnvironmentType = endpoint, "LOOPBACK"
	defer func() { *jobopts.Endpoint, *jobopts.EnvironmentType = savedEndpoint, savedEnv }()
	if _, err := beam.Run(context.Background(), "universal", p); err != nil {
		t.Fatalf("universal runner: %v", err)
	}
}

// TestJobServer submits a stats pipeline to a separately started prism job
// server (runUniversal) and checks its output against the in-process
// run's.
func TestJobServer(t *testing.T) {
	endpoint := startJobServer(t)
	dir := t.TempDir()
	job := DatasetJob{Source: "../../testdata/nwb/tables.nwb", Dataset: "acquisition/ElectricalSeries/data", Selection: "10:990, [3, 1]", GroupBytes: 2000}
	job.Out = filepath.Join(dir, "in-process.json")
	want := runStats(t, job)

	job.Out = filepath.Join(dir, "job-server.json")
	p, s := beam.NewPipelineWithRoot()
	DatasetStats(s, job)
	runUniversal(t, endpoint, p)
	got, err := os.ReadFile(job.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the job server's run wrote\n%s\nthe in-process run\n%s", got, want)
	}
}

// TestJobServerForEach submits a ForEach pipeline (a registered function
// of an *nwb.File, over the stand-in dandiset, failing on one session) to a
// separately started prism job server (runUniversal): its rows and
// failures are the in-process run's, bytes for bytes, and not empty.
func TestJobServerForEach(t *testing.T) {
	endpoint := startJobServer(t)
	srv := danditest.Standard(t)
	srv.Setenv(t, "")
	set := "dandi://" + danditest.Instance + "/" + danditest.Public
	dir := t.TempDir()
	out := func(tag string) map[string]string {
		return map[string]string{"csv": filepath.Join(dir, tag+".csv"), "jsonl": filepath.Join(dir, tag+".jsonl"), "failed": filepath.Join(dir, tag+".failed")}
	}
	runForEach(t, channelSums, out("in-process"), set)

	p, s := beam.NewPipelineWithRoot()
	assets, unlisted := Assets(s, set)
	rows, failed := ForEach(s, channelSums, assets)
	WriteCSV(s, out("job-server")["csv"], rows)
	WriteJSONL(s, out("job-server")["jsonl"], rows)
	WriteJSONL(s, out("job-server")["failed"], beam.Flatten(s, unlisted, failed))
	runUniversal(t, endpoint, p)
	for _, k := range []string{"csv", "jsonl", "failed"} {
		got, want := readOut(t, out("job-server")[k]), readOut(t, out("in-process")[k])
		if !bytes.Equal(got, want) || bytes.Count(got, []byte("\n")) < 1 {
			t.Errorf("%s: the job server's run wrote\n%s\nthe in-process run\n%s", k, got, want)
		}
	}
	if f := readOut(t, out("job-server")["failed"]); !bytes.Contains(f, []byte(danditest.Behavior)) {
		t.Errorf("failures:\n%s", f)
	}
}
