package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/sandbox"
)

// A slow upstream with a cached tool list: the proxy is ready at once,
// search_tools finds the cached tool marked as connecting, and a call made
// meanwhile waits for the connection and succeeds.
func TestCachedToolsWhileConnecting(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "weather forecast for a city"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	gate := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate: // the server is slow to start
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() {
		select {
		case <-gate:
		default:
			close(gate)
		}
	})
	// The connect timeout outlasts WaitReady's context: a WaitReady that
	// waited for the gated upstream would end only with its context.
	up := config.Upstream{Name: "slow", Transport: "http", URL: ts.URL, ConnectTimeout: time.Hour, CallTimeout: time.Hour}
	cached := map[string][]*mcp.Tool{"slow": {{Name: "forecast", Description: "weather forecast for a city", InputSchema: map[string]any{"type": "object"}}}}

	p := New(testConfig(up), &Options{CachedTools: cached, Runners: []sandbox.Runner{sandbox.NewLua(nil)}})
	t.Cleanup(p.Close)
	p.Start(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(time.Minute))
	defer cancel()
	p.WaitReady(ctx)
	if ctx.Err() != nil {
		t.Fatalf("WaitReady returned only when its context ended (%v); want no wait for an upstream with cached tools", ctx.Err())
	}
	if st := p.Status()[0].State; st != StateConnecting {
		t.Fatalf("the gated upstream is %s once WaitReady returned, want %s", st, StateConnecting)
	}
	text, err := p.Search("weather forecast", "name", 5, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("search while connecting:\n%s", text)
	if !strings.Contains(text, "slow.forecast") || !strings.Contains(text, "connecting") {
		t.Fatalf("search while connecting:\n%s\nwant the cached tool, marked as connecting", text)
	}

	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := p.pool.CallTool(context.Background(), "slow", &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{}})
		done <- result{res, err}
	}()
	time.Sleep(200 * time.Millisecond)
	close(gate) // the upstream is up
	r := <-done
	if r.err != nil || r.res.Content[0].(*mcp.TextContent).Text != "sunny" {
		t.Fatalf("a call made while connecting: %v, %v; want it to wait and succeed", r.res, r.err)
	}
	if text, _ := p.Search("weather forecast", "name", 5, ""); strings.Contains(text, "connecting") {
		t.Errorf("still marked connecting once connected:\n%s", text)
	}
}

// A client listing prompts while an upstream is searched from the cache
// gets that upstream's prompts: the list waits for its first connection
// (in CI the Inspector asked for prompts/list at once and got none).
func TestCachedUpstreamPromptsWaitForIt(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "slow"}, nil)
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Description: "say hello"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello"}}}}, nil
	})
	mcp.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "weather"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	gate := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-gate:
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	up := config.Upstream{Name: "slow", Transport: "http", URL: ts.URL, ConnectTimeout: 20 * time.Second, CallTimeout: 20 * time.Second}
	cached := map[string][]*mcp.Tool{"slow": {{Name: "forecast", Description: "weather", InputSchema: map[string]any{"type": "object"}}}}
	p, cs := startProxyWith(t, testConfig(up), &Options{CachedTools: cached, Runners: []sandbox.Runner{sandbox.NewLua(nil)}})
	_ = p
	go func() {
		time.Sleep(300 * time.Millisecond)
		close(gate) // the upstream comes up while prompts/list waits
	}()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	res, err := cs.ListPrompts(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pr := range res.Prompts {
		names = append(names, pr.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "greet") {
		t.Fatalf("prompts/list while the upstream connected: %v; want its prompt", names)
	}
}

// With StartOnCall, an upstream with a cached tool list is not contacted
// until a call to one of its tools: search answers from the cache, marked
// as not started, and the first call starts it and succeeds.
func TestStartOnCall(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "lazy"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "forecast", Description: "weather forecast for a city"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil, nil
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	var mu sync.Mutex
	requests := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	up := config.Upstream{Name: "lazy", Transport: "http", URL: ts.URL, ConnectTimeout: 60 * time.Second, CallTimeout: 60 * time.Second}
	cached := map[string][]*mcp.Tool{"lazy": {{Name: "forecast", Description: "weather forecast for a city", InputSchema: map[string]any{"type": "object"}}}}
	p := New(testConfig(up), &Options{CachedTools: cached, StartOnCall: true, Runners: []sandbox.Runner{sandbox.NewLua(nil)}})
	t.Cleanup(p.Close)
	p.Start(context.Background())
	p.WaitReady(context.Background()) // returns at once: nothing to wait for
	text, err := p.Search("weather forecast", "name", 5, "")
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	before := requests
	mu.Unlock()
	if before != 0 || !strings.Contains(text, "lazy.forecast") || !strings.Contains(text, "not started") {
		t.Fatalf("before any call: %d requests to the upstream, search:\n%s\nwant none, and the cached tool marked as not started", before, text)
	}
	res, err := p.pool.CallTool(context.Background(), "lazy", &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{}})
	if err != nil || res.Content[0].(*mcp.TextContent).Text != "sunny" {
		t.Fatalf("the first call: %v, %v; want it to start the upstream and succeed", res, err)
	}
}
