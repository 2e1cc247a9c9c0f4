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
// on a shared machine; it reports each one's p50, how much each adds to
// the direct call's, which is interleaved too, and how much toolfold adds
// to the go-sdk hop's.
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
	b.ReportMetric(pairedµs(paths[1].d, paths[2].d), "toolfold-over-sdk-hop-µs")
}

// hopPath is one way to make the benchmark's call, with its timings.
type hopPath struct {
	name string
	cs   *mcp.ClientSession
	d    []time.Duration
}

// runInterleaved calls add through each path in turn, b.N rounds, and
// reports each path's p50 in µs and what it adds to the first path's (the
// median of the differences round by round).
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
	for j, p := range paths {
		b.ReportMetric(medianµs(p.d), p.name+"-p50-µs")
		if j > 0 {
			b.ReportMetric(pairedµs(p.d, paths[0].d), p.name+"-added-µs")
		}
	}
}

// medianµs is the median of d, in µs.
func medianµs(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds()) / 1e3
}

// pairedµs is the median of a[i]-b[i], in µs: how much a adds to b in the
// same round, which a load that comes and goes affects less than the
// difference of the two medians.
func pairedµs(a, b []time.Duration) float64 {
	diff := make([]time.Duration, len(a))
	for i := range a {
		diff[i] = a[i] - b[i]
	}
	return medianµs(diff)
}
