package netsim

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"
)

func fixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/conformance/fixture.h5")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func get(t *testing.T, url, rng string) (*http.Response, []byte, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

func TestFaults(t *testing.T) {
	data := fixture(t)
	tests := []struct {
		name   string
		cfg    Config
		path   string
		status int
		header [2]string
		cut    bool
		check  func(Stats) bool
	}{
		{"plain", Config{}, "/f", 206, [2]string{"Content-Range", "bytes 100-199/" + strconv.Itoa(len(data))}, false,
			func(s Stats) bool { return s.Requests == 1 && s.RangeRequests == 1 && s.Bytes == 100 }},
		{"503", Config{Error503: 1}, "/f", 503, [2]string{}, false, func(s Stats) bool { return s.Errors503 == 1 }},
		{"429", Config{TooMany: 1, RetryAfter: 1500 * time.Millisecond}, "/f", 429, [2]string{"Retry-After", "2"}, false,
			func(s Stats) bool { return s.Errors429 == 1 }},
		{"404", Config{NotFound: []string{"/f"}}, "/f", 404, [2]string{}, false, func(s Stats) bool { return s.NotFounds == 1 }},
		{"unknown path", Config{}, "/g", 404, [2]string{}, false, func(s Stats) bool { return s.NotFounds == 0 }},
		{"cut", Config{Cut: 1}, "/f", 206, [2]string{}, true, func(s Stats) bool { return s.Cuts == 1 && s.Bytes == 50 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New(Blobs(map[string][]byte{"/f": data}), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			resp, body, err := get(t, srv.URL+tt.path, "bytes=100-199")
			if tt.cut {
				if !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Fatalf("err = %v, want a cut body", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.status)
			}
			if tt.header[0] != "" && resp.Header.Get(tt.header[0]) != tt.header[1] {
				t.Fatalf("%s = %q, want %q", tt.header[0], resp.Header.Get(tt.header[0]), tt.header[1])
			}
			if tt.status == 206 && !tt.cut && string(body) != string(data[100:200]) {
				t.Fatal("wrong body")
			}
			if st := h.Stats(); !tt.check(st) {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

func TestPacing(t *testing.T) {
	data := fixture(t)
	tests := []struct {
		name string
		cfg  Config
		rng  string
		min  time.Duration
	}{
		{"latency", Config{Latency: 60 * time.Millisecond}, "bytes=0-9", 60 * time.Millisecond},
		{"bandwidth", Config{Bandwidth: 1 << 20}, "bytes=0-104857", 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := New(Blobs(map[string][]byte{"/f": data}), tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(h)
			defer srv.Close()
			t0 := time.Now()
			if _, _, err := get(t, srv.URL+"/f", tt.rng); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(t0); d < tt.min || d > tt.min+time.Second {
				t.Fatalf("took %v, want about %v", d, tt.min)
			}
		})
	}
}

func TestFaultRates(t *testing.T) {
	h, err := New(Blobs(map[string][]byte{"/f": []byte("hello")}), Config{Error503: 0.2, TooMany: 0.1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	for range 1000 {
		if _, _, err := get(t, srv.URL+"/f", ""); err != nil {
			t.Fatal(err)
		}
	}
	st := h.Stats()
	if st.Errors503 < 150 || st.Errors503 > 250 || st.Errors429 < 60 || st.Errors429 > 140 {
		t.Fatalf("rates off: %+v", st)
	}
}

func TestConfig(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"negative fraction", Config{Error503: -0.1}},
		{"fraction above 1", Config{Cut: 1.5}},
		{"sum above 1", Config{Error503: 0.6, TooMany: 0.6}},
		{"negative latency", Config{Latency: -1}},
		{"negative bandwidth", Config{Bandwidth: -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(Blobs(nil), tt.cfg); err == nil {
				t.Fatal("no error")
			}
		})
	}
	if _, err := New(nil, Config{}); err == nil {
		t.Fatal("nil handler accepted")
	}
}
