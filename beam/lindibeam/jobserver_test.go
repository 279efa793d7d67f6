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

// TestJobServer submits a stats pipeline to a separately started prism job
// server with the universal runner and LOOPBACK workers, the path a job
// service of Flink, Spark or Dataflow takes, and checks its output against
// the in-process run's.
func TestJobServer(t *testing.T) {
	port := freePort(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), jobServerEnv+"="+strconv.Itoa(port))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	endpoint := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", endpoint)
		if err == nil {
			c.Close()
			break
		}
		if i == 600 {
			t.Fatalf("the job server did not listen on %s: %s", endpoint, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	dir := t.TempDir()
	job := DatasetJob{Source: "../../testdata/nwb/tables.nwb", Dataset: "acquisition/ElectricalSeries/data", Selection: "10:990, [3, 1]", GroupBytes: 2000}
	job.Out = filepath.Join(dir, "in-process.json")
	want := runStats(t, job)

	job.Out = filepath.Join(dir, "job-server.json")
	p, s := beam.NewPipelineWithRoot()
	DatasetStats(s, job)
	savedEndpoint, savedEnv := *jobopts.Endpoint, *jobopts.EnvironmentType
	*jobopts.Endpoint, *jobopts.EnvironmentType = endpoint, "LOOPBACK"
	defer func() { *jobopts.Endpoint, *jobopts.EnvironmentType = savedEndpoint, savedEnv }()
	if _, err := beam.Run(context.Background(), "universal", p); err != nil {
		t.Fatalf("universal runner: %v\njob server: %s", err, logs.String())
	}
	got, err := os.ReadFile(job.Out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the job server's run wrote\n%s\nthe in-process run\n%s", got, want)
	}
}
