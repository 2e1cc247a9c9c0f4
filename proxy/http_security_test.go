package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

func TestBearerTokenFromEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == BearerTokenEnv {
				return v
			}
			return ""
		}
	}
	if got := BearerToken("cfg", env("env")); got != "cfg" {
		t.Errorf("config and env: %q, want the config's", got)
	}
	if got := BearerToken("", env("env")); got != "env" {
		t.Errorf("env only: %q", got)
	}
	if got := BearerToken("", env("")); got != "" {
		t.Errorf("neither: %q", got)
	}
}

// TestHTTPSessionsCannotBeGuessed: session ids are long and random, and a
// request with an id the server did not hand out is refused.
func TestHTTPSessionsCannotBeGuessed(t *testing.T) {
	p := New(testConfig(), nil)
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	seen := map[string]bool{}
	for range 3 {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := cs.ID()
		if len(id) < 20 || seen[id] {
			t.Errorf("session id %q: want at least 20 random characters, never repeated", id)
		}
		seen[id] = true
		defer cs.Close()
	}
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", "AAAAAAAAAAAAAAAAAAAAAAAAAA")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("a made-up session id: status %d, want 404", resp.StatusCode)
	}
}

// TestHTTPBodyLimit: a request body over the limit is refused, not read.
func TestHTTPBodyLimit(t *testing.T) {
	p := New(testConfig(), nil)
	ts := httptest.NewServer(p.HTTPHandler(""))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("a", 17<<20) + `"}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("17 MiB body: status %d (%s), want 413", resp.StatusCode, msg)
	}
}
