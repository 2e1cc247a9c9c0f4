package proxy

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/sandbox"
)

// runChildren lists this process's children that are script children: a
// sandbox init, or a plain re-executed child.
func runChildren(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var pids []int
	me := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err1 := os.ReadFile("/proc/" + e.Name() + "/stat")
		cmd, err2 := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err1 != nil || err2 != nil {
			continue
		}
		f := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
		if len(f) < 2 || string(f[1]) != me || string(f[0]) == "Z" {
			continue
		}
		if bytes.Contains(cmd, []byte(sandbox.InitArg)) || bytes.Contains(cmd, []byte(sandbox.ChildArg)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitChildren waits until runChildren reports n children.
func waitChildren(t *testing.T, n int, why string) {
	t.Helper()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		got := runChildren(t)
		if len(got) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d script children (%v), want %d", why, len(got), got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWarmChildEndsWithItsSession: with sandbox.warm a session's next run
// has its child started when a run ends; the child ends with the session,
// and none outlives the proxy.
func TestWarmChildEndsWithItsSession(t *testing.T) {
	lua := sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0], Warm: true})
	cfg := testConfig()
	cfg.Sandbox.Prestart = []string{} // TestPrestart: started with the session
	p, cs := startProxyWith(t, cfg, &Options{Runners: []sandbox.Runner{lua}})
	waitChildren(t, 0, "before any run")
	for i := range 3 {
		text, failed := callText(t, cs, "run_script", map[string]any{"code": "return 40 + 2"})
		if failed || valueLine(text) != "42" {
			t.Fatalf("run %d: %s", i, text)
		}
		waitChildren(t, 1, "after a run (the next run's child)")
	}
	// A second session gets its own warm child once it has run.
	cs2 := connectClient(t, p.Server())
	if text, failed := callText(t, cs2, "run_script", map[string]any{"code": "return 1"}); failed {
		t.Fatal(text)
	}
	waitChildren(t, 2, "after the second session's run")
	cs2.Close()
	waitChildren(t, 1, "after the second session ended")
	p.Close()
	if got := runChildren(t); len(got) != 0 {
		t.Fatalf("script children %v outlive the proxy", got)
	}
	// Runs still work on a closed runner (cold), and keep nothing.
	if res, err := lua.Run(t.Context(), sandbox.Request{Code: "return 7", Workdir: t.TempDir()}, nil); err != nil || string(res.Value) != "7" {
		t.Fatalf("run after Close: %v %v", res, err)
	}
	waitChildren(t, 0, "after a run on a closed runner")
}

// TestPrestart: a new session starts the child of its first run in the
// default language (sandbox.prestart unset), so that run is warm; the
// child ends with the session.
func TestPrestart(t *testing.T) {
	rl := &testlog.Runs{}
	lua := sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0], Warm: true, Logger: slog.New(rl)})
	p, cs := startProxyWith(t, testConfig(), &Options{Runners: []sandbox.Runner{lua}})
	waitChildren(t, 1, "a new session (its first run's child)")
	if text, failed := callText(t, cs, "run_script", map[string]any{"code": "return 1"}); failed {
		t.Fatal(text)
	}
	if warm, ok := rl.Last(); !ok || !warm {
		t.Fatalf("the session's first run was not warm (logged: %v)", ok)
	}
	cs2 := connectClient(t, p.Server())
	if _, err := cs2.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	waitChildren(t, 2, "after a second session started")
	cs2.Close()
	waitChildren(t, 1, "after the second session ended, before its first run")

	// An HTTP session starts none when it connects (a burst of sessions
	// behind a load balancer is not a burst of sandboxes), but on its first
	// search_tools, so that its first run is warm.
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()
	hc, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Close()
	if _, err := hc.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	waitChildren(t, 1, "after an HTTP session connected and listed tools")
	for range 2 {
		if text, failed := callText(t, hc, "search_tools", map[string]any{"query": "add numbers"}); failed {
			t.Fatal(text)
		}
	}
	waitChildren(t, 2, "after an HTTP session searched (twice: one child)")
	if text, failed := callText(t, hc, "run_script", map[string]any{"code": "return 2"}); failed {
		t.Fatal(text)
	}
	if warm, ok := rl.Last(); !ok || !warm {
		t.Fatalf("the HTTP session's first run after a search was not warm (logged: %v)", ok)
	}
	hc.Close()
	waitChildren(t, 1, "after the HTTP session ended")
	p.Close()
	waitChildren(t, 0, "after Close")
}
