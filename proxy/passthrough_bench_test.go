package proxy

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolfold/toolfold/config"
)

// BenchmarkPassthroughCall is BenchmarkDirectCall's call through toolfold in
// passthrough mode (in-memory client, the same HTTP upstream), with the PII
// rewrite on (the default) and off: the proxy hop's cost.
//
//	go test -run '^$' -bench 'DirectCall|PassthroughCall' -benchmem ./proxy
func BenchmarkPassthroughCall(b *testing.B) {
	for _, pii := range []bool{true, false} {
		name := "pii-on"
		if !pii {
			name = "pii-off"
		}
		b.Run(name, func(b *testing.B) {
			cfg := testConfig(httpUpstream(b, "calc", newTestServer()))
			cfg.Expose.Mode = config.ExposePassthrough
			cfg.PII.Disabled = !pii
			_, cs := startProxy(b, cfg)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
