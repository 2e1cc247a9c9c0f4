package proxy

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/sessiontag"
	"github.com/toolfold/toolfold/internal/testlog"
)

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
	if !strings.Contains(out, sessiontag.Of(id)) {
		t.Errorf("the session's tag %s is not in the log:\n%s", sessiontag.Of(id), out)
	}
}
