package proxy

import (
	"context"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/mcptext"
)

// The load benchmarks open 100 client sessions to toolfold over streamable
// HTTP and keep them all busy: b.N requests in total, each session sending
// its next as soon as the last returned. They report throughput, latency
// percentiles and errors (the goal is 0; any error fails the benchmark).
//
//	go test -run '^$' -bench 'HTTPSessions' -benchtime 500x ./proxy

const loadSessions = 100

// BenchmarkHTTPSessionsRunScript: every request is a run_script calling an
// upstream tool (a sandbox child process per run).
func BenchmarkHTTPSessionsRunScript(b *testing.B) {
	cfg := testConfig(httpUpstream(b, "calc", newTestServer()))
	loadBench(b, cfg, &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{"code": "return tools.calc.add{a = 1, b = 2}.sum"}})
}

// BenchmarkHTTPSessionsPassthrough: every request is a tool call forwarded
// as it is (expose: passthrough).
func BenchmarkHTTPSessionsPassthrough(b *testing.B) {
	cfg := testConfig(httpUpstream(b, "calc", newTestServer()))
	cfg.Expose.Mode = config.ExposePassthrough
	loadBench(b, cfg, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
}

func loadBench(b *testing.B, cfg *config.Config, call *mcp.CallToolParams) {
	p := New(cfg, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p.Start(ctx)
	p.WaitReady(ctx)
	defer p.Close()
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()

	sessions := make([]*mcp.ClientSession, loadSessions)
	for i := range sessions {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "load"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
		if err != nil {
			b.Fatalf("session %d: %v", i, err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	var (
		next   atomic.Int64
		errs   atomic.Int64
		mu     sync.Mutex
		lat    = make([]time.Duration, 0, b.N)
		wg     sync.WaitGroup
		first  error
		firstM sync.Once
	)
	b.ResetTimer()
	start := time.Now()
	for _, cs := range sessions {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				res, err := cs.CallTool(ctx, call)
				d := time.Since(t0)
				if err == nil && res.IsError {
					err = errText(mcptext.Text(res.Content))
				}
				if err != nil {
					errs.Add(1)
					firstM.Do(func() { first = err })
					continue
				}
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	slices.Sort(lat)
	pct := func(q float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[min(len(lat)-1, int(q*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(float64(errs.Load()), "errors")
	if n := errs.Load(); n > 0 {
		b.Fatalf("%d of %d requests failed; first: %v", n, b.N, first)
	}
}

type errText string

func (e errText) Error() string { return string(e) }
