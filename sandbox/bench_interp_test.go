package sandbox

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

// benchOverhead measures, in one run, a bare spawn of the interpreter
// (bare: its argv with a no-op program, same flags) against a full run of
// a trivial script through r, alternating the two so that both see the
// same machine load. It reports both means, their difference and ratio.
// Each pair is preceded by pause, off the clock: a model thinks between
// two runs, which is when a warm runner starts the next run's child.
func benchOverhead(b *testing.B, r Runner, bare []string, pause time.Duration) {
	ctx := context.Background()
	var tBare, tRun time.Duration
	for b.Loop() {
		b.StopTimer()
		time.Sleep(pause)
		b.StartTimer()
		start := time.Now()
		cmd := exec.Command(bare[0], bare[1:]...)
		cmd.Env = interpEnv // as the runner's: node reads NODE_EXTRA_CA_CERTS at start, say
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("bare %v: %v %s", bare, err, out)
		}
		tBare += time.Since(start)
		start = time.Now()
		res, err := r.Run(ctx, Request{Code: "return 1"}, benchHost{})
		if err != nil || res.Err != nil {
			b.Fatalf("Run: %v, %v", err, res.Err)
		}
		tRun += time.Since(start)
	}
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return float64(d) / n / 1e6 }
	b.ReportMetric(ms(tBare), "bare-ms")
	b.ReportMetric(ms(tRun), "run-ms")
	b.ReportMetric(ms(tRun-tBare), "overhead-ms")
	b.ReportMetric(float64(tRun)/float64(tBare), "ratio")
}

// overheadPause is the time between two runs in the Overhead benchmarks.
const overheadPause = 100 * time.Millisecond

// BenchmarkPythonOverhead: a run against `python3 -I -S -B -c pass`; cold
// starts each run's child, warm (as toolfold serve) uses the one started
// after the previous run.
func BenchmarkPythonOverhead(b *testing.B) {
	py := newTestPython(b)
	bare := []string{py.in.proc.exe, "-I", "-S", "-B", "-c", "pass"}
	b.Run("cold", func(b *testing.B) { benchOverhead(b, py, bare, overheadPause) })
	b.Run("warm", func(b *testing.B) { benchOverhead(b, benchWarm(b, py.in.proc, py), bare, overheadPause) })
}

// BenchmarkJavaScriptOverhead: a run against `node --max-old-space-size=512 -e 0`.
func BenchmarkJavaScriptOverhead(b *testing.B) {
	js := newTestNode(b)
	bare := []string{js.Path(), "--max-old-space-size=512", "-e", "0"}
	b.Run("cold", func(b *testing.B) { benchOverhead(b, js, bare, overheadPause) })
	b.Run("warm", func(b *testing.B) { benchOverhead(b, benchWarm(b, js.in.proc, js), bare, overheadPause) })
}

// benchWarm makes r (whose procRunner is p, a copy of the test runner's)
// keep warm children until the benchmark ends.
func benchWarm(b *testing.B, p *procRunner, r Runner) Runner {
	p.warm = newSpares(p, true)
	b.Cleanup(p.close)
	return r
}

// benchCalls runs one script making 1000 sequential tool calls and
// reports the time per call (the spawn amortized over them).
func benchCalls(b *testing.B, r Runner, code string) {
	ctx := context.Background()
	for b.Loop() {
		res, err := r.Run(ctx, Request{Code: code, Limits: Limits{MaxToolCalls: 1000}}, benchHost{})
		if err != nil || res.Err != nil {
			b.Fatalf("Run: %v, %v", err, res.Err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/call")
}

func BenchmarkPythonBridgeCall(b *testing.B) {
	benchCalls(b, newTestPython(b), "n = 0\nfor i in range(1000):\n    n += tools.fs.read_file(path='x', i=i)['n']\nreturn n")
}

func BenchmarkJavaScriptBridgeCall(b *testing.B) {
	benchCalls(b, newTestNode(b), "let n = 0\nfor (let i = 0; i < 1000; i++) n += (await tools.fs.read_file({path: 'x', i})).n\nreturn n")
}
