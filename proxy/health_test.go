package proxy

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestHealthAndReadiness: /healthz and /readyz need no bearer token and say
// one word; /readyz fails until every upstream's first connection attempt
// is over, while the store check fails, and once draining.
func TestHealthAndReadiness(t *testing.T) {
	storeErr := errors.New("redis: connection refused")
	var storeDown atomic.Bool
	cfg := testConfig(httpUpstream(t, "echo", mcp.NewServer(&mcp.Implementation{Name: "echo"}, nil)))
	p := New(cfg, &Options{ReadyCheck: func(context.Context) error {
		if storeDown.Load() {
			return storeErr
		}
		return nil
	}})
	defer p.Close()
	ts := httptest.NewServer(p.HTTPHandler("secret"))
	defer ts.Close()

	if code, body := get(t, ts.URL+"/healthz"); code != 200 || body != "ok\n" {
		t.Errorf("/healthz without a token: %d %q, want 200 ok", code, body)
	}
	if code, _ := get(t, ts.URL+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz before the upstreams were tried: %d, want 503", code)
	}
	if code, _ := get(t, ts.URL+"/mcp"); code != http.StatusUnauthorized {
		t.Errorf("/mcp without a token: %d, want 401 (health endpoints must not open it)", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	p.Start(ctx)
	p.WaitReady(ctx)
	if code, body := get(t, ts.URL+"/readyz"); code != 200 || body != "ready\n" {
		t.Errorf("/readyz once connected: %d %q, want 200 ready", code, body)
	}
	storeDown.Store(true)
	if code, body := get(t, ts.URL+"/readyz"); code != http.StatusServiceUnavailable || strings.Contains(body, "redis") {
		t.Errorf("/readyz with the store down: %d %q, want 503 revealing nothing", code, body)
	}
	storeDown.Store(false)
	if !p.Drain(ctx) {
		t.Fatal("Drain with nothing in flight did not return at once")
	}
	if code, _ := get(t, ts.URL+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz while draining: %d, want 503", code)
	}
}

// TestDrainWaitsForRunsAndRefusesNewSessions: once draining, a new session
// is refused with 503, an existing session's running script finishes, and
// Drain returns when it has.
func TestDrainWaitsForRunsAndRefusesNewSessions(t *testing.T) {
	release := make(chan struct{})
	called := make(chan struct{}, 1)
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case called <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
	})
	p, _ := startProxy(t, testConfig(httpUpstream(t, "slow", srv)))
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	connect := func() (*mcp.ClientSession, error) {
		return mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil)
	}
	cs, err := connect()
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type out struct {
		text string
		err  error
	}
	done := make(chan out, 1)
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{
			"code": "tools.slow.wait{} return 'finished'", "language": "lua"}})
		if err != nil {
			done <- out{err: err}
			return
		}
		done <- out{text: res.Content[0].(*mcp.TextContent).Text}
	}()
	// Wait until the run is in flight: its script has called the slow
	// tool. (Counting requests in flight could see the client's
	// notifications/initialized still being posted, and Drain then
	// returned before run_script's request came.)
	select {
	case <-called:
	case <-time.After(testlog.Bound(time.Minute)):
		t.Fatal("the run never called the slow tool")
	}
	p.drain.mu.Lock()
	n := p.drain.inflight
	p.drain.mu.Unlock()
	if n == 0 {
		t.Fatal("a run is calling a tool, but no request is counted in flight")
	}
	drained := make(chan bool, 1)
	go func() { drained <- p.Drain(ctx) }()
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); ; time.Sleep(5 * time.Millisecond) {
		if !p.Ready(ctx) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("still ready after Drain was called")
		}
	}
	if _, err := connect(); err == nil {
		t.Error("a new session was accepted while draining")
	}
	select {
	case <-drained:
		t.Fatal("Drain returned while a run was still in flight")
	default:
	}
	close(release)
	got := <-done
	if got.err != nil || !strings.Contains(got.text, "finished") {
		t.Errorf("the run in flight: %q, %v; want it to finish", got.text, got.err)
	}
	if !<-drained {
		t.Error("Drain reported requests still in flight after the run finished")
	}
}
