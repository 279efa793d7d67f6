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
// ranges mean bytes of the object.
var sharedTransport = newTransport()

func newTransport() *http.Transport {
	var protos http.Protocols
	protos.SetHTTP1(true)
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		Protocols:             &protos,
	}
}
