package proxy

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/mcptext"
	"github.com/toolfold/toolfold/internal/testlog"
)

// testStatefulEnv makes the test binary a stdio server that remembers
// notes in memory: remember{text} and recall{}.
const testStatefulEnv = "TOOLFOLD_TEST_STATEFUL"

func runStatefulUpstream() {
	var mu sync.Mutex
	var notes []string
	s := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	type in struct {
		Text string `json:"text"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "remember", Description: "Remember a note."},
		func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			notes = append(notes, a.Text)
			mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "recall", Description: "Recall the notes."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			mu.Lock()
			defer mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "notes:" + strings.Join(notes, ",")}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
	os.Exit(0)
}

func statefulUpstream(name string) config.Upstream {
	u := stdioUpstream(name)
	u.Env = map[string]string{testStatefulEnv: "1"}
	return u
}

// TestScopeSession: with scope: session each client session gets its own
// instance of the upstream, so what one session stored the other cannot
// read; the instance stops when its session ends, and the bound on
// instances is enforced with a message that says what to do.
func TestScopeSession(t *testing.T) {
	up := statefulUpstream("notes")
	up.Scope, up.Instances = config.ScopeSession, 2
	p, _ := startProxy(t, testConfig(up))
	a, b := connectClient(t, p.Server()), connectClient(t, p.Server())
	if out, failed := runLua(t, a, `return tools.notes.remember{text = "alpha"}`); failed {
		t.Fatal(out)
	}
	if out, _ := runLua(t, b, `return tools.notes.recall{}`); !strings.Contains(out, `=> "notes:"`) {
		t.Errorf("session b read: %s; want no notes (a's instance is a's)", out)
	}
	if out, _ := runLua(t, a, `return tools.notes.recall{}`); !strings.Contains(out, `=> "notes:alpha"`) {
		t.Errorf("session a read: %s", out)
	}
	c := connectClient(t, p.Server())
	if out, failed := runLua(t, c, `return tools.notes.recall{}`); !failed || !strings.Contains(out, "raise instances in proxy.yaml") {
		t.Errorf("a third session past instances: 2: %s", out)
	}
	_ = a.Close()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		n := instancesOf(p, "notes")
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d instances %v after session a ended, want 1 (b's)", n, testlog.Bound(time.Minute))
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out, failed := runLua(t, c, `return tools.notes.recall{}`); failed || !strings.Contains(out, `=> "notes:"`) {
		t.Errorf("a third session once a's instance stopped: %s", out)
	}
}

// testAskerEnv makes the test binary a stdio server whose tools ask their
// client (see runAskerUpstream); its value is a directory the tools of
// different instances meet in.
const testAskerEnv = "TOOLFOLD_TEST_ASKER"

// runAskerUpstream serves: work{} logs "asker working"; hold{} marks
// dir/holding and returns once dir/release exists; ask{} waits for
// dir/holding, then logs and asks its client for sampling and elicitation,
// and returns the answers. It speaks 2025-11-25, as many servers do.
func runAskerUpstream(dir string) {
	waitFile := func(name string) {
		for end := time.Now().Add(testlog.Bound(time.Minute)); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				return
			}
		}
	}
	// 2025-11-25: server-to-client requests while serving a call (which
	// 2026-07-28 replaces by inputRequests in the result, routed by the
	// call's own context) and logging/setLevel.
	s := mcp.NewServer(&mcp.Implementation{Name: "asker"}, &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25"}})
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "work", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "asker working"})
		return text("done"), nil
	})
	s.AddTool(&mcp.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := os.WriteFile(filepath.Join(dir, "holding"), nil, 0o600); err != nil {
			return nil, err
		}
		waitFile("release")
		return text("held"), nil
	})
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		waitFile("holding") // another session's call is now the latest in flight to "asker"
		ss := req.Session
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: "asker asking"})
		msg, err := ss.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return nil, err
		}
		el, err := ss.Elicit(ctx, &mcp.ElicitParams{Message: "name?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return nil, err
		}
		return text(msg.Content.(*mcp.TextContent).Text + "|" + el.Content["name"].(string)), nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
	os.Exit(0)
}

// askerConfig is the asker, scope: session, two instances at most, in
// passthrough mode; dir is where its instances meet.
func askerConfig(t *testing.T) (cfg *config.Config, dir string) {
	dir = t.TempDir()
	up := stdioUpstream("asker")
	up.Env = map[string]string{testAskerEnv: dir}
	up.Scope, up.Instances = config.ScopeSession, 2
	cfg = testConfig(up)
	cfg.Expose.Mode = config.ExposePassthrough
	return cfg, dir
}

// TestScopeSessionInstanceLogLevel: a session's own instance gets the
// session's logging level, whether the session set it before the instance
// started (sent when it connects) or after (sent to its instances too);
// a pre-2026-07-28 server sends no log messages until a level is set.
func TestScopeSessionInstanceLogLevel(t *testing.T) {
	cfg, _ := askerConfig(t)
	p, _ := startProxy(t, cfg)
	if got := p.Status()[0].Protocol; got >= "2026-07-28" {
		t.Fatalf("upstream protocol %q; the test needs one with logging/setLevel", got)
	}
	var la, lb clientLog
	alice, bob := richClient(t, p, "alice", &la), richClient(t, p, "bob", &lb)
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	work := func(cs *mcp.ClientSession) {
		t.Helper()
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "work", Arguments: map[string]any{}}); err != nil || res.IsError {
			t.Fatalf("work: %v %+v", err, res)
		}
	}
	setLevel := func(cs *mcp.ClientSession) {
		t.Helper()
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	setLevel(alice) // before her instance starts
	work(alice)
	waitFor(t, "alice's log message, level set before her instance started", func() bool { return la.has("log:asker working") })
	work(bob) // his instance starts with no level
	setLevel(bob)
	work(bob)
	waitFor(t, "bob's log message, level set after his instance started", func() bool { return lb.has("log:asker working") })
}

// TestScopeSessionPinsClientRequests: what a session's own instance asks
// or tells a client (sampling, elicitation, log messages) goes to the
// session that owns the instance, never to another, even while the other
// session has the most recent request in flight to the same upstream name,
// where the relay would send it otherwise (see pinnedHooks).
func TestScopeSessionPinsClientRequests(t *testing.T) {
	cfg, dir := askerConfig(t)
	release := func() { _ = os.WriteFile(filepath.Join(dir, "release"), nil, 0o600) }
	defer release()
	p, _ := startProxy(t, cfg)
	var la, lb clientLog
	alice, bob := richClient(t, p, "alice", &la), richClient(t, p, "bob", &lb)
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	for _, cs := range []*mcp.ClientSession{alice, bob} {
		if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
			t.Fatal(err)
		}
	}
	type answer struct {
		text string
		err  error
	}
	asked := make(chan answer, 1)
	go func() {
		res, err := alice.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{}})
		if err != nil {
			asked <- answer{err: err}
			return
		}
		asked <- answer{text: mcptext.Text(res.Content)}
	}()
	held := make(chan error, 1)
	go func() {
		_, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "hold", Arguments: map[string]any{}})
		held <- err
	}()
	var got answer
	select {
	case got = <-asked:
	case <-ctx.Done():
		t.Fatal("alice's call did not return")
	}
	if got.err != nil || got.text != "sampled by alice|alice" {
		t.Errorf("alice's instance asked for sampling and elicitation: got %q, %v; want both answered by alice", got.text, got.err)
	}
	waitFor(t, "alice's log message", func() bool { return la.has("log:asker asking") })
	release()
	if err := <-held; err != nil {
		t.Fatalf("bob's hold: %v", err)
	}
	if lb.has("log:asker asking") {
		t.Errorf("bob got the log message of alice's instance")
	}
	n := instancesOf(p, "asker")
	if n != 2 {
		t.Errorf("%d session instances, want 2 (alice's and bob's)", n)
	}
}

// instancesOf is how many session instances of the upstream up run.
func instancesOf(p *Proxy, up string) int {
	for _, st := range p.Status() {
		if st.Name == up {
			return st.Instances
		}
	}
	return -1
}
