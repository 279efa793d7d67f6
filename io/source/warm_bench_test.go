package source

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// handshakeConn charges a connection what a network would for opening it,
// as the project's bench server does (slowserve -tls -handshake): its first
// read waits a round trip (TCP), and so does its first write (the server's
// TLS flight).
type handshakeConn struct {
	net.Conn
	rtt         time.Duration
	read, wrote bool
}

func (c *handshakeConn) Read(p []byte) (int, error) {
	if !c.read {
		c.read = true
		time.Sleep(c.rtt)
	}
	return c.Conn.Read(p)
}

func (c *handshakeConn) Write(p []byte) (int, error) {
	if !c.wrote {
		c.wrote = true
		time.Sleep(c.rtt)
	}
	return c.Conn.Write(p)
}

type handshakeListener struct {
	net.Listener
	rtt time.Duration
}

func (l handshakeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &handshakeConn{Conn: c, rtt: l.rtt}, nil
}

// BenchmarkColdHTTPS reads as a remote read does over cold HTTPS/1.1: one
// request (the LINDI JSON, the HDF5 superblock), then a wave of concurrent
// range requests (the chunks), on a fresh transport each time, against a
// server charging a round trip of rtt for TCP, one for TLS and one per
// request. rtts/op is the wall time in round trips: 3 + 1 when the wave's
// connections were opened during the first request (the floor of the
// project's `run https`), 3 + 3 when each is dialled for its request, plus
// the handshakes' CPU, client and server on the same cores (httptest's RSA
// certificate is dearer than an ECDSA one). Measured on 2 shared cores:
// wave=4 6.9 → 4.7 round trips, wave=32 10.5 → 7-8.7.
func BenchmarkColdHTTPS(b *testing.B) {
	const rtt = 10 * time.Millisecond
	data := bytes.Repeat([]byte("lindi"), 1<<12)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(rtt)
		http.ServeContent(w, r, "f", time.Time{}, bytes.NewReader(data))
	}))
	srv.Listener = handshakeListener{Listener: srv.Listener, rtt: rtt}
	srv.StartTLS()
	b.Cleanup(srv.Close)
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig
	for _, wave := range []int{4, 32} {
		for _, warm := range []int{1, wave} {
			b.Run(fmt.Sprintf("wave=%d/warm=%d", wave, warm), func(b *testing.B) {
				ctx := context.Background()
				for b.Loop() {
					tr, _ := newTransport(false)
					tr.TLSClientConfig = roots.Clone()
					h, err := NewHTTP(srv.URL+"/f", WithClient(&http.Client{Transport: tr}), WithResolver(nil), WithWarmConns(warm))
					if err != nil {
						b.Fatal(err)
					}
					var p [64]byte
					if _, err := h.ReadAt(ctx, p[:], 0); err != nil {
						b.Fatal(err)
					}
					var wg sync.WaitGroup
					for i := range wave {
						wg.Go(func() {
							var q [64]byte
							if _, err := h.ReadAt(ctx, q[:], int64(i*100)); err != nil {
								b.Error(err)
							}
						})
					}
					wg.Wait()
					tr.CloseIdleConnections()
				}
				b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(rtt), "rtts/op")
			})
		}
	}
}
