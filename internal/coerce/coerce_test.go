package coerce

import (
	"encoding/json"
	"testing"
)

func TestArgs(t *testing.T) {
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
		if got := string(Args(json.RawMessage(tc.in), schema)); got != tc.want {
			t.Errorf("Args(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
