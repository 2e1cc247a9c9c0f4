package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/sandbox"
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

// BenchmarkRunScriptOneCall: cold starts each run's sandboxed child; warm
// (sandbox.warm, as toolfold serve) uses the child started when the
// previous run ended, each run 100 ms after the last (off the clock), as a
// model reads one answer before it writes the next script.
func BenchmarkRunScriptOneCall(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name, pause := "cold", time.Duration(0)
		if warm {
			name, pause = "warm", 100*time.Millisecond
		}
		b.Run(name, func(b *testing.B) {
			lua := sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0], Warm: warm})
			_, cs := startProxyWith(b, testConfig(httpUpstream(b, "calc", newTestServer())), &Options{Runners: []sandbox.Runner{lua}})
			ctx := context.Background()
			args := map[string]any{"code": "return tools.calc.add{a = 1, b = 2}.sum"}
			b.ReportAllocs()
			for b.Loop() {
				b.StopTimer()
				time.Sleep(pause)
				b.StartTimer()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: args})
				if err != nil || res.IsError {
					b.Fatal(err, res)
				}
			}
		})
	}
}
