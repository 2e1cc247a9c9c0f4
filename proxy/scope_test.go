package proxy

import (
	"context"
	"log"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
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
	deadline := time.Now().Add(10 * time.Second)
	for {
		p.pool.inst.mu.Lock()
		n := p.pool.inst.count["notes"]
		p.pool.inst.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d instances 10 s after session a ended, want 1 (b's)", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if out, failed := runLua(t, c, `return tools.notes.recall{}`); failed || !strings.Contains(out, `=> "notes:"`) {
		t.Errorf("a third session once a's instance stopped: %s", out)
	}
}
