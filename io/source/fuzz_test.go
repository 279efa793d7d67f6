package source

import (
	"net/url"
	"testing"
	"time"
)

func FuzzParseContentRange(f *testing.F) {
	for _, s := range []string{"bytes 0-0/1", "bytes 5-14/100", "bytes 5-14/*", "bytes */100", "bytes 9-5/10",
		"bytes 0-99999999999999999999/1", "bytes -1-5/10", "bytes 0-9/5", "", "bytes 1-2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first, last, total, err := parseContentRange(s)
		if err != nil {
			return
		}
		if first < 0 || last < first || (total >= 0 && last >= total) || total < -1 {
			t.Fatalf("%q parsed to %d-%d/%d", s, first, last, total)
		}
	})
}

func FuzzRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "3", "120", "-1", "Wed, 21 Oct 2015 07:28:00 GMT", "soon", "99999999999999999999"} {
		f.Add(s)
	}
	now := time.Date(2015, 10, 21, 7, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		if d, ok := retryAfter(s, now); ok && d < 0 {
			t.Fatalf("%q gave negative wait %v", s, d)
		}
	})
}

// FuzzExpiry reads presigned-URL expiries from any query: a time or zero,
// never a panic, and never a time for a URL that carries no expiry.
func FuzzExpiry(f *testing.F) {
	f.Add("https://s3/b?X-Amz-Date=20250101T000000Z&X-Amz-Expires=3600")
	f.Add("https://s3/b?Expires=1700000000")
	f.Add("https://s3/b?X-Amz-Date=2025&X-Amz-Expires=-5&Expires=999999999999999999")
	f.Fuzz(func(t *testing.T, raw string) {
		e := expiry(raw)
		u, err := url.Parse(raw)
		if (err != nil || !u.Query().Has("Expires") && !u.Query().Has("X-Amz-Expires")) && !e.IsZero() {
			t.Fatalf("expiry(%q) = %v without an Expires parameter", raw, e)
		}
		_ = e.Before(time.Now())
	})
}
