package proxy

import (
	"context"
	"os"
	"os/exec"
	"syscall"
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

// BenchmarkPassthroughStdio is BenchmarkPassthroughCall over a stdio
// upstream (this test binary as a server), as `toolfold-lab bench` measures
// it: direct, through toolfold with the PII rewrite on and off, and
// through a go-sdk-only hop.
//
//	go test -run '^$' -bench PassthroughStdio -benchmem ./proxy
func BenchmarkPassthroughStdio(b *testing.B) {
	ctx := context.Background()
	args := map[string]any{"a": 1, "b": 2}
	loop := func(b *testing.B, cs *mcp.ClientSession) {
		b.ReportAllocs()
		cpu := processCPU()
		for b.Loop() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: args})
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
		b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
	}
	b.Run("direct", func(b *testing.B) { loop(b, dialStdio(b)) })
	for _, pii := range []bool{true, false} {
		name := "pii-on"
		if !pii {
			name = "pii-off"
		}
		b.Run(name, func(b *testing.B) {
			cfg := testConfig(stdioUpstream("calc"))
			cfg.Expose.Mode = config.ExposePassthrough
			cfg.PII.Disabled = !pii
			_, cs := startProxy(b, cfg)
			loop(b, cs)
		})
	}
	b.Run("sdk-hop", func(b *testing.B) {
		ucs := dialStdio(b)
		srv := mcp.NewServer(&mcp.Implementation{Name: "hop"}, nil)
		srv.AddTool(&mcp.Tool{Name: "add", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return ucs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: req.Params.Arguments})
		})
		loop(b, connectClient(b, srv))
	})
}

// processCPU is the CPU time this process has used, in nanoseconds: for
// the stdio benchmarks, the client's and the hop's, not the upstream's.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// dialStdio connects a plain go-sdk client to this test binary run as a
// stdio upstream.
func dialStdio(b *testing.B) *mcp.ClientSession {
	up := stdioUpstream("calc")
	cmd := exec.Command(up.Command)
	cmd.Env = append(os.Environ(), testUpstreamEnv+"=1")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "direct"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}
