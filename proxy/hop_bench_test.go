package proxy

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolfold/toolfold/config"
)

// BenchmarkHopInterleaved times the stdio passthrough call through
// toolfold (PII on) and through a go-sdk-only hop, one call of each in
// turn, in a new random order each round, so that both see the same load
// on a shared machine; it reports each one's p50 and how much each adds
// to the direct call's, which is interleaved too.
//
//	go test -run '^$' -bench HopInterleaved -benchtime 2000x ./proxy
func BenchmarkHopInterleaved(b *testing.B) {
	cfg := testConfig(stdioUpstream("calc"))
	cfg.Expose.Mode = config.ExposePassthrough
	_, tf := startProxy(b, cfg)
	ucs := dialStdio(b)
	srv := mcp.NewServer(&mcp.Implementation{Name: "hop"}, nil)
	srv.AddTool(&mcp.Tool{Name: "add", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return ucs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: req.Params.Arguments})
	})
	paths := []hopPath{{name: "direct", cs: dialStdio(b)}, {name: "toolfold", cs: tf}, {name: "sdk-hop", cs: connectClient(b, srv)}}
	runInterleaved(b, paths)
}

// hopPath is one way to make the benchmark's call, with its timings.
type hopPath struct {
	name string
	cs   *mcp.ClientSession
	d    []time.Duration
}

// runInterleaved calls add through each path in turn, b.N rounds, and
// reports each path's p50 in µs and the p50s' differences from the first.
func runInterleaved(b *testing.B, paths []hopPath) {
	ctx := context.Background()
	args := map[string]any{"a": 1, "b": 2}
	for i := range paths { // warm-up
		if _, err := paths[i].cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: args}); err != nil {
			b.Fatal(err)
		}
	}
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	for b.Loop() {
		// A call can pay for the previous one's tail (its goroutines
		// finishing, the GC it triggered): a new order every round.
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			start := time.Now()
			res, err := paths[i].cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: args})
			paths[i].d = append(paths[i].d, time.Since(start))
			if err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	}
	p50 := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Nanoseconds()) / 1e3
	}
	base := p50(paths[0].d)
	b.ReportMetric(base, paths[0].name+"-p50-µs")
	for _, p := range paths[1:] {
		v := p50(p.d)
		b.ReportMetric(v, p.name+"-p50-µs")
		b.ReportMetric(v-base, p.name+"-added-µs")
	}
}
