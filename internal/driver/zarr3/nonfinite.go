package zarr3

import (
	"math"

	"github.com/lindigo/lindi/zarrmeta"
)

// JSON has no NaN or infinities. zarr-python writes them as bare tokens
// (zarrmeta.DecodeJSON reads those as floats); the non-finite-attributes
// Zarr convention (github.com/catalystneuro/zarr-non-finite-attributes, used
// by zarrshadow) writes them as the strings "NaN", "Infinity" and
// "-Infinity" instead, escapes a string of those characters with a "_str_"
// prefix, and holds only in a node whose zarr_conventions attribute lists
// its registration (by uuid).
const (
	attrConventions = "zarr_conventions"
	nonFiniteUUID   = "2adc9aac-d676-4e93-8feb-903b6ae9e08a"
	nonFiniteStrip  = "_str_"
)

// decodeNonFinite returns the attributes m stand for: m itself unless it
// registers the non-finite-attributes convention; else its values decoded,
// and the registration left out of zarr_conventions (the attribute gone when
// it was the only entry).
func decodeNonFinite(m map[string]any) map[string]any {
	conv, ok := m[attrConventions].([]any)
	if !ok {
		return m
	}
	var others []any
	registered := false
	for _, e := range conv {
		if em, ok := e.(map[string]any); ok && em["uuid"] == nonFiniteUUID {
			registered = true
			continue
		}
		others = append(others, e)
	}
	if !registered {
		return m
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != attrConventions {
			out[k] = nonFinite(v)
		}
	}
	if len(others) > 0 {
		out[attrConventions] = others
	}
	return out
}

// nonFinite decodes one value of a node registering the convention (its
// nesting bounded by zarrmeta.DecodeJSON's).
func nonFinite(v any) any { return zarrmeta.MapJSON(v, nonFiniteString) }

// nonFiniteString decodes a string of the convention: "NaN", "Infinity" and
// "-Infinity" are floats, and an escaped string loses one "_str_" prefix.
func nonFiniteString(v any) (any, bool) {
	s, ok := v.(string)
	if !ok {
		return v, false
	}
	rest := s
	n := 0
	for len(rest) > len(nonFiniteStrip) && rest[:len(nonFiniteStrip)] == nonFiniteStrip {
		rest, n = rest[len(nonFiniteStrip):], n+1
	}
	var f float64
	switch rest {
	case "NaN":
		f = math.NaN()
	case "Infinity":
		f = math.Inf(1)
	case "-Infinity":
		f = math.Inf(-1)
	default:
		return s, true
	}
	if n > 0 {
		return s[len(nonFiniteStrip):], true // an escaped string: one prefix off
	}
	return f, true
}
