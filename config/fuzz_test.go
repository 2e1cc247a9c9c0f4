package config

import (
	"errors"
	"os"
	"testing"
)

// FuzzParse checks that Parse never panics, and that it returns either a
// config or positioned Errors, never both nor neither.
func FuzzParse(f *testing.F) {
	if sample, err := os.ReadFile("../proxy.yaml"); err == nil {
		f.Add(sample)
	}
	for _, seed := range []string{
		"",
		"upstreams: {a: {command: x, args: [1, 2], env: {A: '${B:-c}'}}}",
		"upstreams:\n  a: &x {command: y}\n  b: {<<: *x, url: 'http://h/${T}'}\n",
		"a: &x {<<: *x}",
		"a: &x [*x]",
		"upstreams: {a: {transport: http, url: 'https://h', headers: {K: $$}}}\nsandbox: {memory: 1.5GiB}\n",
		`{"mcpServers": {"a b": {"command": "x", "type": "sse", "disabled": true}}} // c`,
		`{"servers": {"x": {"type": "http", "url": "${input:t}"}}, "inputs": [],}`,
		"mcpServers:\n  - name: a\n    command: b\n",
		"{\"a\": \"\\/\\ud83d\\ude00\"}",
		"upstreams: {a: {command: x}}\n---\nx: 1\n",
	} {
		f.Add([]byte(seed))
	}
	opts := env(map[string]string{"T": "t", "HOME": "/h"})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("fuzz.yaml", data, opts)
		if (cfg == nil) == (err == nil) {
			t.Fatalf("Parse returned config %v and error %v", cfg, err)
		}
		var es Errors
		if err != nil && (!errors.As(err, &es) || len(es) == 0) {
			t.Fatalf("error %T %v: want non-empty Errors", err, err)
		}
	})
}
