package proxy

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/sandbox"
)

// syncBuffer is a bytes.Buffer safe for a logger's concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// olderHTTPServer serves server over streamable HTTP, answering the
// 2026-07-28 server/discover probe with a plain 400, as HTTP servers
// written before that protocol version do.
func olderHTTPServer(t testing.TB, server *mcp.Server) *httptest.Server {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if bytes.Contains(body, []byte(`"server/discover"`)) {
			http.Error(w, "Bad Request", http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

func TestDiscoverProbeOfOlderServerIsNotAWarning(t *testing.T) {
	ts := olderHTTPServer(t, newTestServer())
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	up := config.Upstream{Name: "old", Transport: "http", URL: ts.URL,
		ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout}
	p, _ := startProxyWith(t, testConfig(up), &Options{Logger: log})
	if st := p.Status()[0]; st.State != StateReady {
		t.Fatalf("status = %+v, want ready after falling back to initialize", st)
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "server/discover") && !strings.Contains(line, "level=DEBUG") {
			t.Errorf("the probe of an older server logs above debug: %s", line)
		}
	}
	if !strings.Contains(logs.String(), "server/discover") {
		t.Errorf("no debug line for the probe; logs:\n%s", logs.String())
	}
}

func TestHTTPUpstreamGoneIsUnavailable(t *testing.T) {
	// An HTTP upstream that went away reads as a stdio one that crashed:
	// unavailable, reconnected automatically.
	setVar(t, &reconnectBackoff, 50*time.Millisecond)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return newTestServer() }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	up := config.Upstream{Name: "remote", Transport: "http", URL: ts.URL,
		ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout}
	p, cs := startProxy(t, testConfig(up))
	if text, isErr := runLua(t, cs, `return tools.remote.add{a=1, b=2}`); isErr {
		t.Fatalf("call before the server went away: %q", text)
	}
	ts.CloseClientConnections()
	ts.Close()
	text, isErr := runLua(t, cs, `return tools.remote.add{a=1, b=2}`)
	if !isErr || !strings.Contains(text, `upstream "remote" is unavailable`) || strings.Contains(text, "rejected by transport") {
		t.Errorf("call after the server went away: %q; want it named unavailable, reconnecting", text)
	}
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for p.Status()[0].State == StateReady && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if st := p.Status()[0]; st.State == StateReady {
		t.Errorf("status after the server went away = %+v; want it reconnecting", st)
	}
}

func TestCallingAnUpstreamToolDirectlySaysHow(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc")))
	for _, name := range []string{"add", "calc.add"} {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"a": 1, "b": 2}})
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("call %s: err = %v; want an invalid-params error", name, err)
		}
		for _, want := range []string{"unknown tool", "search_tools", "run_script", "calc.add"} {
			if !strings.Contains(werr.Message, want) {
				t.Errorf("call %s: %q lacks %q", name, werr.Message, want)
			}
		}
	}
}

func TestRunScriptSaysTheWorkspacePersists(t *testing.T) {
	const want = "persist between runs in this session"
	for _, tc := range []struct {
		langs []string
		says  bool
	}{
		{[]string{"lua"}, false}, // Lua has no file functions
		{[]string{"lua", "python"}, true},
		{[]string{"javascript"}, true},
	} {
		var runners []sandbox.Runner
		for _, l := range tc.langs {
			runners = append(runners, namedRunner(l))
		}
		p := New(testConfig(), &Options{Runners: runners})
		run := p.AdvertisedTools()[1]
		p.Close()
		if got := strings.Contains(run.Description, want); got != tc.says {
			t.Errorf("%v: run_script's description mentions the workspace: %v, want %v:\n%s", tc.langs, got, tc.says, run.Description)
		}
	}
}

func TestUnauthorizedHTTPUpstreamSaysWhatToDo(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://`+r.Host+`/.well-known/oauth-protected-resource"`)
		http.Error(w, "Unauthorized", http.StatusUnauthorized)
	}))
	t.Cleanup(ts.Close)
	up := config.Upstream{Name: "hosted", Transport: "http", URL: ts.URL,
		ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout}
	p, _ := startProxy(t, testConfig(up))
	st := p.Status()[0]
	if st.State != StateDown || !strings.Contains(st.Err, "Unauthorized") || !strings.Contains(st.Err, "headers:") || !strings.Contains(st.Err, "`oauth: {}`") {
		t.Errorf("status = %s: %q; want down, saying to set oauth: {} or a token in headers", st.State, st.Err)
	}
}
