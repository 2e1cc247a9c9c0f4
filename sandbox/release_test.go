package sandbox

import (
	"encoding/json"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// TestResultFrameMatchesMarshal: the one-copy result frame is the frame
// marshal writes, and refuses what it refuses.
func TestResultFrameMatchesMarshal(t *testing.T) {
	for _, tt := range []struct {
		result, output string
	}{
		{`null`, ""},
		{`{"a": [1, 2, {"b": "<x> & \u2028"}]}`, ""},
		{"{\n  \"html\": \"<a & b>\"\n}", "printed\n\"quoted\" <b>\x01"},
		{`"` + strings.Repeat("x", 100<<10) + `"`, "é"},
	} {
		want, err := marshal(&frame{ID: 42, Result: json.RawMessage(tt.result), Output: tt.output})
		if err != nil {
			t.Fatal(err)
		}
		got, err := resultFrame(42, json.RawMessage(tt.result), tt.output)
		if err != nil || string(got) != string(want) {
			t.Errorf("resultFrame(%.40q, %q) = %.80s, %v; want %.80s", tt.result, tt.output, got, err, want)
		}
	}
	if _, err := resultFrame(1, json.RawMessage(`{"a":`), ""); err == nil {
		t.Error("resultFrame accepted invalid JSON")
	}
}

func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestLargeRunReleasesMemory: after a run that moved more than
// largeRunBytes through the bridge, the heap is collected and returned to
// the OS; after a small run it is not.
func TestLargeRunReleasesMemory(t *testing.T) {
	lim := Limits{MaxFrameBytes: 32 << 20, MemoryBytes: 256 << 20}
	before := forcedGCs()
	if res := runLuaTest(t, `return string.rep("x", 1000)`, lim, nil); res.Err != nil {
		t.Fatal(res.Err)
	}
	time.Sleep(2 * releaseDelay)
	if n := forcedGCs() - before; n != 0 {
		t.Errorf("%d forced collections after a small run, want none", n)
	}
	res := runLuaTest(t, `return string.rep("x", 6 * 1048576)`, lim, nil)
	if res.Err != nil || len(res.Value) != 6<<20+2 {
		t.Fatalf("Err %v, value of %d bytes", res.Err, len(res.Value))
	}
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); forcedGCs()-before < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d forced collections after a run of 6 MiB, want 2", forcedGCs()-before)
		}
	}
	start := time.Now()
	releaseMemory()
	t.Logf("releaseMemory took %s", time.Since(start))
}
