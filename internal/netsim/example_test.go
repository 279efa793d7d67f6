package netsim_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/lindigo/lindi/internal/netsim"
)

func ExampleNew() {
	blobs := netsim.Blobs(map[string][]byte{"/data.bin": []byte("hello, slow world")})
	sim, err := netsim.New(blobs, netsim.Config{Latency: 20 * time.Millisecond, Bandwidth: 1 << 20})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(sim)
	defer srv.Close()

	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/data.bin", nil)
	req.Header.Set("Range", "bytes=7-10")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.StatusCode, string(body), sim.Stats().RangeRequests)
	// Output: 206 slow 1
}
