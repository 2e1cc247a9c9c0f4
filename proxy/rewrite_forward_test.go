package proxy

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
)

// TestPIIInUpstreamRequestsToTheClient: what an upstream sends a client
// outside the client's own request — a log line, a sampling request, an
// elicitation, a progress message — is tokenized for that client's
// session, and what the client answers reaches the upstream detokenized.
func TestPIIInUpstreamRequestsToTheClient(t *testing.T) {
	const email = "dana.scully@example.com"
	var mu sync.Mutex
	var upstreamGot string
	s := mcp.NewServer(&mcp.Implementation{Name: "leaky"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ss := req.Session
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "contact " + email})
		if tok := req.Params.GetProgressToken(); tok != nil {
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: 1, Total: 2, Message: "mailing " + email})
		}
		msg, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, SystemPrompt: "write to " + email,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "greet " + email}}}})
		if err != nil {
			return nil, err
		}
		el, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "confirm " + email + "?",
			RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"to": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		mu.Lock()
		upstreamGot = msg.Content.(*mcp.TextContent).Text + "|" + el.Content["to"].(string)
		mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	cfg := testConfig(httpUpstream(t, "leaky", s))
	cfg.Expose.Mode = config.ExposePassthrough
	p, _ := startProxy(t, cfg)

	var seenMu sync.Mutex
	var seen []string
	see := func(s string) { seenMu.Lock(); seen = append(seen, s); seenMu.Unlock() }
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := p.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	firstToken := func(s string) string {
		i := strings.Index(s, "[EMAIL_")
		if i < 0 {
			return "no token in " + s
		}
		return s[i : i+strings.Index(s[i:], "]")+1]
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "model"}, &mcp.ClientOptions{
		CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			text := req.Params.Messages[0].Content.(*mcp.TextContent).Text
			see("sampling system: " + req.Params.SystemPrompt)
			see("sampling: " + text)
			// The model answers with the token it was shown.
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hello " + firstToken(text)}}, nil
		},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			see("elicit: " + req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"to": firstToken(req.Params.Message)}}, nil
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { see("log: " + fmtAny(req.Params.Data)) },
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			see("progress: " + req.Params.Message)
		},
	})
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}}
	params.SetProgressToken("t1")
	if res, err := cs.CallTool(ctx, params); err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	waitFor(t, "the log and the progress message", func() bool {
		seenMu.Lock()
		defer seenMu.Unlock()
		return len(seen) >= 5
	})
	seenMu.Lock()
	defer seenMu.Unlock()
	for _, s := range seen {
		if strings.Contains(s, email) {
			t.Errorf("the client saw the raw address: %s", s)
		}
		if !strings.Contains(s, "[EMAIL_1]") {
			t.Errorf("no token where the address was: %s", s)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "hello " + email + "|" + email; upstreamGot != want {
		t.Errorf("the upstream got %q, want the client's answers detokenized: %q", upstreamGot, want)
	}
}
