package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The two benchmarks below make the same tool call against the same
// upstream (streamable HTTP on loopback): directly from a client, and from
// a run_script script through toolfold. The difference is what code mode
// costs per call: a child process per run, the bridge, and the proxy hop.
//
//	go test -run '^$' -bench 'OneCall' -benchmem ./proxy

func BenchmarkDirectCall(b *testing.B) {
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newTestServer() }, nil))
	defer ts.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}

func BenchmarkRunScriptOneCall(b *testing.B) {
	_, cs := startProxy(b, testConfig(httpUpstream(b, "calc", newTestServer())))
	ctx := context.Background()
	args := map[string]any{"code": "return tools.calc.add{a = 1, b = 2}.sum"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: args})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
	}
}
