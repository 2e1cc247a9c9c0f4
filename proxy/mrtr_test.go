package proxy

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/mcptext"
)

// newProtocolServer is an upstream speaking 2026-07-28 (stateless HTTP):
// "confirm" asks for input in the multi-round-trip form (inputRequests in
// its result), "logs" logs at the level the request's _meta carries.
func newProtocolServer(t *testing.T) config.Upstream {
	s := mcp.NewServer(&mcp.Implementation{Name: "modern"}, nil)
	s.AddTool(&mcp.Tool{Name: "confirm", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		resp, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{
				InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: "name?",
					RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}},
				RequestState: "asked",
			}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "confirmed by " + resp.Content["name"].(string)}}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "logs", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "modern working"})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "logged"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(ts.Close)
	return config.Upstream{Name: "modern", Transport: "http", URL: ts.URL, ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout}
}

// TestMultiRoundTripUpstream: a 2026-07-28 upstream's inputRequests are
// fulfilled by the client that made the call (here a 2025-11-25 client,
// asked with elicitation/create), and its logs follow the session's level.
func TestMultiRoundTripUpstream(t *testing.T) {
	cfg := testConfig(newProtocolServer(t))
	cfg.Expose.Mode = config.ExposePassthrough
	p, _ := startProxy(t, cfg)
	if got := p.Status()[0].Protocol; got != "2026-07-28" {
		t.Fatalf("upstream protocol %q; the test needs 2026-07-28", got)
	}
	var log clientLog
	cs := richClient(t, p, "carol", &log)
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "confirm", Arguments: map[string]any{}})
	if err != nil || res.IsError || mcptext.Text(res.Content) != "confirmed by carol" {
		t.Fatalf("confirm: %v %+v", err, res)
	}
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "logs", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the upstream's log", func() bool { return log.has("log:modern working") })
}
