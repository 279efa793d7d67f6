package index

import (
	"encoding/json"
	"math"
	"testing"
)

// TestFloatSpelling checks that floats are written as Python's json.dumps
// writes them (the wants are its output), non-finite ones as lindi's strings.
func TestFloatSpelling(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{
		{30000, "30000.0"}, {1e-05, "1e-05"}, {1.5e20, "1.5e+20"}, {0.0001, "0.0001"},
		{1e16, "1e+16"}, {1234567890123456, "1234567890123456.0"}, {math.Copysign(0, -1), "-0.0"},
		{0.1, "0.1"}, {5e-324, "5e-324"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{123.456, "123.456"}, {9999999999999998, "9999999999999998.0"}, {-1, "-1.0"},
		{2.5e-5, "2.5e-05"}, {0.00012, "0.00012"},
		{math.NaN(), `"NaN"`}, {math.Inf(1), `"Infinity"`}, {math.Inf(-1), `"-Infinity"`},
	} {
		b, err := json.Marshal(map[string]any{"a": finite(c.x)})
		if err != nil {
			t.Fatal(err)
		}
		if got := string(b); got != `{"a":`+c.want+`}` {
			t.Errorf("%v: got %s, want %s", c.x, got, c.want)
		}
	}
}
