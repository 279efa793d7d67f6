package fetch

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorNamesSourceOnce: the URL appears once, whether or not the cause
// names it.
func TestErrorNamesSourceOnce(t *testing.T) {
	const url = "https://h.org/f.h5"
	for _, cause := range []error{errors.New("source: GET " + url + ": HTTP 404"), errors.New("unexpected EOF")} {
		msg := (&Error{Source: url, Off: 10, Len: 5, Err: cause}).Error()
		if strings.Count(msg, url) != 1 || !strings.Contains(msg, "[10, 15)") {
			t.Errorf("%q: want the URL once and the range", msg)
		}
	}
}
