package proxy

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rssTestEnv runs TestLargeResultRSS, which takes over a minute.
const rssTestEnv = "TOOLFOLD_RSS_TEST"

// TestLargeResultRSS measures the proxy's memory around run_script runs
// whose results are 3-31 MiB: a script's return value, and a tool result
// (a test upstream answering with that many bytes; it serves streamable
// HTTP from this process, so its own buffers count here too). It reports VmRSS idle, right after the runs and each 10 s for a
// minute, with nothing forced (no runtime.GC, no FreeOSMemory): what a
// proxy left alone does. It fails when RSS is not back within 2x of idle
// within the minute.
//
//	TOOLFOLD_RSS_TEST=1 go test -count=1 -run TestLargeResultRSS -v ./proxy/
func TestLargeResultRSS(t *testing.T) {
	if os.Getenv(rssTestEnv) == "" {
		t.Skip("set " + rssTestEnv + "=1 to measure (takes over a minute)")
	}
	cfg := testConfig(httpUpstream(t, "calc", blobServer()))
	cfg.Sandbox.MaxFrameBytes = 64 << 20
	cfg.Sandbox.MemoryBytes = 1 << 30
	cfg.Sandbox.Timeout, cfg.Sandbox.CPUTime = time.Minute, time.Minute
	cfg.Upstreams[0].CallTimeout = time.Minute
	_, cs := startProxy(t, cfg)
	for range 3 { // warm up: every path once, small
		runOK(t, cs, `return string.rep("x", 1000)`)
		runOK(t, cs, `return #tools.calc.blob{bytes = 1000}`)
	}
	time.Sleep(5 * time.Second)
	idle := rss(t)
	t.Logf("idle: %s", memLine(idle))
	for _, mib := range []int{3, 7, 15, 31} {
		n := strconv.Itoa(mib << 20)
		runOK(t, cs, `return string.rep("x", `+n+`)`)
		runOK(t, cs, `return #tools.calc.blob{bytes = `+n+`}`)
	}
	after := rss(t)
	t.Logf("after the runs: %s", memLine(after))
	var last int64
	for s := 10; s <= 60; s += 10 {
		time.Sleep(10 * time.Second)
		last = rss(t)
		t.Logf("%2d s later: %s", s, memLine(last))
	}
	t.Logf("RSS idle %.1f MiB, after %.1f MiB, a minute later %.1f MiB (%.2fx idle)",
		mib(idle), mib(after), mib(last), float64(last)/float64(idle))
	runtime.GC() // what is still live, for the log; after the check's figure
	t.Logf("after a forced GC: %s", memLine(rss(t)))
	if last > 2*idle {
		t.Errorf("RSS a minute after the large results is %.1f MiB, over 2x the idle %.1f MiB", mib(last), mib(idle))
	}
}

type blobIn struct {
	Bytes int `json:"bytes"`
}

// blobServer is an upstream whose tool blob answers with a text of the
// bytes asked for.
func blobServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "blob", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "blob", Description: "A text of the given size."},
		func(_ context.Context, _ *mcp.CallToolRequest, in blobIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("y", in.Bytes)}}}, nil, nil
		})
	return s
}

func runOK(t *testing.T, cs *mcp.ClientSession, code string) {
	t.Helper()
	text, isErr := runLua(t, cs, code)
	if isErr {
		t.Fatalf("run failed:\n%.2000s", text)
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// rss is this process's VmRSS.
func rss(t *testing.T) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status:", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// memLine is RSS with the Go runtime's view: heap in use, free but kept,
// released to the OS.
func memLine(rss int64) string {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(s)
	return fmt.Sprintf("RSS %.1f MiB (heap objects %.1f MiB, free kept %.1f MiB, released %.1f MiB; %d GCs, %d goroutines)",
		mib(rss), mib(int64(s[0].Value.Uint64())), mib(int64(s[1].Value.Uint64())), mib(int64(s[2].Value.Uint64())),
		s[3].Value.Uint64(), runtime.NumGoroutine())
}
