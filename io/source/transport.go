package source

import (
	"net"
	"net/http"
	"time"
)

// sharedTransport serves every HTTP source that was not given a client: one
// pool of keep-alive connections for the process. HTTP/1.1 only, because
// parallel bulk transfers over separate TCP connections beat multiplexed
// streams sharing one congestion window. Compression is off so that byte
// ranges mean bytes of the object. Its dials go through a warmer, which
// opens a read's connections to a new host while its first request is
// under way (see WithWarmConns).
var sharedTransport, _ = newTransport(true)

// newTransport makes a transport like sharedTransport; hedge races
// connection attempts that stall (see hedged).
func newTransport(hedge bool) (*http.Transport, *warmer) {
	var protos http.Protocols
	protos.SetHTTP1(true)
	t := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		Protocols:             &protos,
	}
	dial := newDialer().DialContext
	if hedge {
		dial = hedged(dial)
	}
	return t, installWarmer(t, dial)
}

func newDialer() *net.Dialer {
	return &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
}
