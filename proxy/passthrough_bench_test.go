package proxy

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolfold/toolfold/config"
)

// BenchmarkPassthroughCall is BenchmarkDirectCall's call through toolfold in
// passthrough mode (in-memory client, the same HTTP upstream), with the PII
// rewrite on (the default) and off: the proxy hop's cost. sdk-hop is the
// same hop built from the go-sdk alone (a server whose one tool calls the
// upstream's), for what any go-sdk proxy pays; the rest is toolfold's.
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
	b.Run("sdk-hop", func(b *testing.B) {
		up := httpUpstream(b, "calc", newTestServer())
		ctx := context.Background()
		ucs, err := mcp.NewClient(&mcp.Implementation{Name: "hop"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: up.URL}, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = ucs.Close() })
		srv := mcp.NewServer(&mcp.Implementation{Name: "hop"}, nil)
		srv.AddTool(&mcp.Tool{Name: "add", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return ucs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: req.Params.Arguments})
		})
		cs := connectClient(b, srv)
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
}
