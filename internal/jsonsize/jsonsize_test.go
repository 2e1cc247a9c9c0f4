package jsonsize

import (
	"encoding/json"
	"math"
	"testing"
)

// Size must agree with what json.Marshal writes, or passthrough's bound lets
// oversized structured content through (or cuts what fits).
func TestJSONSizeMatchesMarshal(t *testing.T) {
	var decoded any
	if err := json.Unmarshal([]byte(`{"a":[1,2.5,-3e-7,1e21,123456789012,0,true,false,null],"b":{"c":"x\"y\\z\n\t<&>","é":"\u2028ü\u0001"},"":[]}`), &decoded); err != nil {
		t.Fatal(err)
	}
	values := []any{
		nil, true, false, "", "plain", "quote\" back\\ nl\n tab\t cr\r bf\b\f", "<html>&amp;", "\x01\x1f",
		"héllo wörld ✓ 🎉", "bad \xff utf8", "sep \u2028 \u2029", 0.0, 1.0, -1.5, 1e-7, 1.5e-7, 1e20, 1e21, 123456789.125,
		math.MaxFloat64, math.SmallestNonzeroFloat64, json.Number("12.50"), json.RawMessage(`{"x":[1,2]}`),
		map[string]any{}, []any{}, map[string]any{"k\"<": []any{1.0, "v", nil, map[string]any{"z": false}}},
		decoded, struct {
			A int    `json:"a"`
			B string `json:"b"`
		}{1, "<b>"},
	}
	for _, v := range values {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := Size(v, math.MaxInt); got != len(b) {
			t.Errorf("Size(%#v) = %d, json.Marshal wrote %d bytes: %s", v, got, len(b), b)
		}
	}
}

func TestJSONSizeStopsPastLimit(t *testing.T) {
	big := make([]any, 1000)
	for i := range big {
		big[i] = "0123456789"
	}
	full := Size(big, math.MaxInt)
	if n := Size(big, 100); n <= 100 || n >= full {
		t.Errorf("Size with limit 100 = %d, want over 100 and under the full %d", n, full)
	}
}
