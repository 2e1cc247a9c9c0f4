package proxy

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// TestRedactSessionKeys: every spelling of a session id key is redacted,
// in groups and With attributes too, to the same tag; other values stay.
func TestRedactSessionKeys(t *testing.T) {
	var buf syncBuffer
	log := redactSessions(slog.New(slog.NewTextHandler(&buf, nil)))
	const id = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	log.Info("one", "session_id", id, "sessionID", id, "Mcp-Session-Id", id, "session", id, "other", "kept")
	log.With("sid", id).WithGroup("g").Info("two", slog.Group("inner", "session_id", id))
	log.Info("three", "session", SessionTag(id))
	out := buf.String()
	if strings.Contains(out, id) {
		t.Fatalf("a session id in the log:\n%s", out)
	}
	tag := SessionTag(id)
	if n := strings.Count(out, tag); n != 7 {
		t.Errorf("tag %s appears %d times, want 7 (each redacted value, an existing tag kept):\n%s", tag, n, out)
	}
	if !strings.Contains(out, "other=kept") {
		t.Errorf("an unrelated attribute was changed:\n%s", out)
	}
	if SessionTag(id) == SessionTag(id+"x") || SessionTag("") != "" {
		t.Error("SessionTag: different ids must get different tags, and the stdio session none")
	}
}

// TestHTTPSessionIDNeverLogged: an HTTP session's id, which the go-sdk
// logs at INFO ("server session connected"), never reaches the log, at
// any level, through a session's whole life: initialize, search, a run,
// DELETE.
func TestHTTPSessionIDNeverLogged(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := New(testConfig(), &Options{Logger: log})
	defer p.Close()
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	id := cs.ID()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "x"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{"code": "return 1", "language": "lua"}}); err != nil {
		t.Fatal(err)
	}
	cs.Close() // a DELETE
	ended := false
	for i := 0; i < 500 && !ended; i++ {
		ended = strings.Contains(buf.String(), "server session disconnected")
		time.Sleep(10 * time.Millisecond)
	}
	out := buf.String()
	if !strings.Contains(out, "server session connected") {
		t.Fatalf("the go-sdk's connection line is missing; is the logger handed on?\n%s", out)
	}
	if strings.Contains(out, id) {
		t.Errorf("the session id %s is in the log:\n%s", id, out)
	}
	if !strings.Contains(out, SessionTag(id)) {
		t.Errorf("the session's tag %s is not in the log:\n%s", SessionTag(id), out)
	}
}
