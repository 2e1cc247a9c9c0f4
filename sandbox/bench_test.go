package sandbox

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"
)

// benchHost answers every call at once with a small object.
type benchHost struct{}

func (benchHost) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{"ok":true,"n":1}`), nil
}

func (benchHost) Search(context.Context, string, string, int) (string, error) { return "", nil }

func benchRun(b *testing.B, code string, lim Limits) {
	l := NewLua(&LuaOptions{Exe: testBinary()})
	ctx := context.Background()
	for b.Loop() {
		res, err := l.Run(ctx, Request{Code: code, Limits: lim}, benchHost{})
		if err != nil || res.Err != nil {
			b.Fatalf("Run: %v, %v", err, res.Err)
		}
	}
}

// BenchmarkSpawnTrue is the floor: fork+exec of a tiny binary, for scale.
func BenchmarkSpawnTrue(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLuaRun: spawn a child, run a trivial script, reap.
func BenchmarkLuaRun(b *testing.B) { benchRun(b, `return 1`, Limits{}) }

// BenchmarkLuaRunOneCall: the same plus one tool call through the bridge.
func BenchmarkLuaRunOneCall(b *testing.B) {
	benchRun(b, `return tools.fs.read_file{path = "x"}.n`, Limits{})
}

// BenchmarkBridgeCall: one run making 1000 calls; ns/call includes the
// spawn, amortized (about 3 µs of it).
func BenchmarkBridgeCall(b *testing.B) {
	benchRun(b, `local n = 0 for i = 1, 1000 do n = n + tools.fs.read_file{path = "x", i = i}.n end return n`, Limits{MaxToolCalls: 1000})
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/call")
}
