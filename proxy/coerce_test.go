package proxy

import (
	"encoding/json"
	"testing"
)

func TestCoerceArgs(t *testing.T) {
	var schema map[string]any
	json.Unmarshal([]byte(`{"type":"object","properties":{
		"entities":{"type":"array","items":{"type":"object","properties":{
			"name":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}}}},
		"meta":{"type":"object"},
		"tags":{"type":["array","null"]},
		"either":{"type":["array","object"]},
		"labels":{"type":"object","additionalProperties":{"type":"array"}}}}`), &schema)
	for _, tc := range []struct{ in, want string }{
		{`{"entities":[{"name":"a","observations":{}}]}`, `{"entities":[{"name":"a","observations":[]}]}`},
		{`{"entities":{}}`, `{"entities":[]}`},
		{`{"meta":{}}`, `{"meta":{}}`},
		{`{"tags":{}}`, `{"tags":[]}`},
		{`{"either":{}}`, `{"either":{}}`},
		{`{"labels":{"x":{}}}`, `{"labels":{"x":[]}}`},
		{`{"unknown":{}}`, `{"unknown":{}}`},
		{`{"entities":{},"n":12345678901234567890}`, `{"entities":[],"n":12345678901234567890}`},
	} {
		if got := string(coerceArgs(json.RawMessage(tc.in), schema)); got != tc.want {
			t.Errorf("coerceArgs(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestUTF8Prefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"héllo", 2, "h"}, // é is two bytes: never cut in half
		{"héllo", 3, "hé"},
		{"abc", 10, "abc"},
		{"日本", 4, "日"},
	} {
		if got := string(utf8Prefix([]byte(tc.in), tc.max)); got != tc.want {
			t.Errorf("utf8Prefix(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
