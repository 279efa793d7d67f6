package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0", 1023: "1023", 1024: "1.0K", 1536: "1.5K", 1537: "1.6K", 10 * 1024: "10K",
		10*1024 + 1: "11K", 1024*1024 - 1: "1.0M", 87 << 20: "87M", 3 << 30: "3.0G",
	} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %s, want %s", n, got, want)
		}
	}
}

// TestSizesListed: ls -l (bundled with -r) and info show the logical and
// the stored size of a dataset, in every form.
func TestSizesListed(t *testing.T) {
	for _, name := range []string{"fixture.h5", "fixture.lindi.json", "fixture.lindi.tar", "fixture.lindi.d"} {
		src := filepath.Join(fixtures, name)
		code, out, stderr := lindi("ls", "-lr", src)
		if code != 0 {
			t.Fatalf("%s: %s", name, stderr)
		}
		want := regexp.MustCompile(`(?m)^279K +223K +/acquisition/ElectricalSeries/data +dataset `)
		if !want.MatchString(out) || !regexp.MustCompile(`(?m)^ +/acquisition +group$`).MatchString(out) {
			t.Errorf("%s: ls -lr:\n%s", name, out)
		}
		code, out, stderr = lindi("info", src, "acquisition/ElectricalSeries/data")
		if code != 0 || !strings.Contains(out, `"size": "279K"`) || !strings.Contains(out, `"stored": "223K"`) ||
			!strings.Contains(out, `"nbytes": 285408`) {
			t.Errorf("%s: info: %s %s", name, out, stderr)
		}
	}
}
