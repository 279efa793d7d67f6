package h5_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// WithConcurrency bounds the connections a remote file opens ahead, not
// only its requests in flight: a cold host is given as many connections as
// the reads will use, and no more.
func TestConcurrencyBoundsConnections(t *testing.T) {
	for _, name := range []string{"fixture.lindi.json", "fixture.h5", "fixture-latest.h5"} {
		var conns atomic.Int64
		srv := httptest.NewUnstartedServer(httpFixtures())
		srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateNew {
				conns.Add(1)
			}
		}
		srv.Start()
		const n = 2
		runCases(t, srv.URL, []string{name}, h5.WithConcurrency(n))
		if got := conns.Load(); got > n {
			t.Errorf("%s with WithConcurrency(%d): %d connections", name, n, got)
		}
		srv.Close()
	}
}
