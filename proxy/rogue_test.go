package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/mcptext"
	"github.com/toolfold/toolfold/internal/testlog"
)

// testRogueEnv makes the test binary a misbehaving stdio upstream written by
// hand; it appends each method it receives to the file the variable names.
const testRogueEnv = "TOOLFOLD_TEST_ROGUE"

// floodCount is how many notifications the rogue "flood" tool sends.
const floodCount = 2000

// runRogueUpstream answers initialize and tools/list, and tools/call by the
// tool's name: "ok" answers, "hang" never does, "flood" sends floodCount
// notifications first, "huge" answers with 1.5 MiB of text, "garbage" writes a
// line that is not JSON, "die" exits mid-call.
func runRogueUpstream(logPath string) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(f, msg.Method, msg.Params.Name)
			f.Close()
		}
		if msg.ID == nil {
			continue // a notification
		}
		reply := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result}) }
		text := func(s string) map[string]any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
		}
		switch msg.Method {
		case "initialize":
			reply(map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}, "logging": map[string]any{}},
				"serverInfo": map[string]any{"name": "rogue", "version": "0.1"}})
		case "tools/list":
			var tools []any
			for _, n := range []string{"ok", "hang", "flood", "huge", "garbage", "die"} {
				tools = append(tools, map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
			}
			reply(map[string]any{"tools": tools})
		case "tools/call":
			switch msg.Params.Name {
			case "ok":
				reply(text("fine"))
			case "hang":
			case "flood":
				for i := range floodCount {
					send(map[string]any{"jsonrpc": "2.0", "method": "notifications/message", "params": map[string]any{"level": "info", "data": i}})
				}
				reply(text("flooded"))
			case "huge":
				reply(text(strings.Repeat("x", 1536<<10)))
			case "garbage":
				out.WriteString("{this is not json\n")
				out.Flush()
			case "die":
				os.Exit(7)
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
	os.Exit(0)
}

func rogueUpstream(t *testing.T) (config.Upstream, string) {
	log := t.TempDir() + "/methods"
	return config.Upstream{
		Name: "rogue", Transport: "stdio", Command: os.Args[0],
		Env: map[string]string{testRogueEnv: log}, Cwd: os.TempDir(),
		ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout,
	}, log
}

// TestRogueUpstream: whatever one upstream does, the client gets a clear
// answer in time, and the other upstream and other sessions are unaffected.
func TestRogueUpstream(t *testing.T) {
	setVar(t, &reconnectBackoff, 50*time.Millisecond)
	setVar(t, &forwardedResultCap, 256<<10)
	for _, tc := range []struct {
		tool        string
		want        string        // in the error or result text
		callTimeout time.Duration // 0: upstreamTimeout, a hang guard
	}{
		{"hang", "did not answer hang within 5s (call_timeout)", 5 * time.Second},
		// 2,000 notifications, or 1.5 MiB, take more than 5 s on a loaded
		// machine (race-built test binary on both ends).
		{"flood", "flooded", 0},
		{"huge", "[toolfold: the upstream's result was 1.5 MiB, over the 256.0 KiB toolfold passes on", 0},
		{"garbage", `upstream "rogue" sent a message that is not valid JSON while answering garbage`, 0},
		{"die", `upstream "rogue" is unavailable`, 0},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			rogue, _ := rogueUpstream(t)
			if tc.callTimeout != 0 {
				rogue.CallTimeout = tc.callTimeout
			}
			cfg := testConfig(rogue, stdioUpstream("calc"))
			cfg.Expose.Mode = config.ExposePassthrough
			p, cs := startProxy(t, cfg)
			var other clientLog
			bystander := richClient(t, p, "bystander", &other)
			ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
			defer cancel()
			waitFor(t, "rogue to be ready", func() bool { return p.Status()[0].State == StateReady })
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{}})
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = mcptext.Text(res.Content)
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("%s: got %.300q, want it to contain %q", tc.tool, got, tc.want)
			}
			if len(got) > 300<<10 {
				t.Errorf("%s: %d bytes reached the client", tc.tool, len(got))
			}
			t.Logf("%s answered in %v: %.160q", tc.tool, time.Since(start).Round(time.Millisecond), got)
			// The other upstream, and another session, still work.
			res, err = bystander.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
			if err != nil || res.IsError {
				t.Fatalf("calc from another session after %s: %v %+v", tc.tool, err, res)
			}
		})
	}
}

// TestClientCancelReachesUpstream: a client that cancels a call, directly
// or through a script, has the upstream request cancelled too.
func TestClientCancelReachesUpstream(t *testing.T) {
	rogue, methods := rogueUpstream(t)
	rogue.CallTimeout = time.Hour // only the cancellation can end the call in time
	cfg := testConfig(rogue)
	cfg.Expose.Mode = config.ExposeHybrid
	cfg.Expose.Pin = []string{"rogue.hang"}
	_, cs := startProxy(t, cfg)
	for _, call := range []*mcp.CallToolParams{
		{Name: "hang", Arguments: map[string]any{}},
		{Name: "run_script", Arguments: map[string]any{"code": "return tools.rogue.hang{}"}},
	} {
		before := countLines(methods, "notifications/cancelled")
		calls := countLines(methods, "tools/call")
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, call)
			done <- err
		}()
		// Cancel once the upstream has the call (a script's sandbox may take
		// a while to start on a loaded machine).
		waitFor(t, call.Name+": the call to reach the upstream", func() bool { return countLines(methods, "tools/call") > calls })
		start := time.Now()
		cancel()
		if err := <-done; err == nil {
			t.Fatalf("%s: a hanging call succeeded", call.Name)
		}
		if d := time.Since(start); d > testlog.Bound(time.Minute) {
			t.Errorf("%s: the cancelled call took %v to return: the cancellation did not end it", call.Name, d)
		}
		waitFor(t, call.Name+": notifications/cancelled upstream", func() bool { return countLines(methods, "notifications/cancelled") > before })
	}
}

func countLines(path, prefix string) int {
	data, _ := os.ReadFile(path)
	n := 0
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			n++
		}
	}
	return n
}

// TestHTTPClientGoneCancelsUpstream: an HTTP client that ends its session
// (DELETE) with a call in flight has the upstream request, or the script
// making it, cancelled. (A dropped connection alone is not a cancellation
// for a 2025 session, whose client may resume the stream; for 2026-07-28
// requests it is, through the SDK's PropagateRequestCancellation.)
func TestHTTPClientGoneCancelsUpstream(t *testing.T) {
	rogue, methods := rogueUpstream(t)
	rogue.CallTimeout = time.Minute
	cfg := testConfig(rogue)
	cfg.Expose.Mode = config.ExposeHybrid
	cfg.Expose.Pin = []string{"rogue.hang"}
	p := New(cfg, nil)
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	p.Start(ctx)
	p.WaitReady(ctx)
	defer p.Close()
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()
	for _, call := range []*mcp.CallToolParams{
		{Name: "hang", Arguments: map[string]any{}},
		{Name: "run_script", Arguments: map[string]any{"code": "return tools.rogue.hang{}"}},
	} {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		before := countLines(methods, "notifications/cancelled")
		calls := countLines(methods, "tools/call")
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, call)
			done <- err
		}()
		waitFor(t, "the call to reach the upstream", func() bool { return countLines(methods, "tools/call") > calls })
		del, _ := http.NewRequest(http.MethodDelete, ts.URL+"/mcp", nil)
		del.Header.Set("Mcp-Session-Id", cs.ID())
		resp, err := http.DefaultClient.Do(del)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if err := <-done; err == nil {
			t.Fatalf("%s: the call succeeded after its session ended", call.Name)
		}
		waitFor(t, call.Name+": notifications/cancelled upstream after the client left", func() bool {
			return countLines(methods, "notifications/cancelled") > before
		})
	}
}
