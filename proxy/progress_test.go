package proxy

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/skills"
)

// heldProvider is a fakeProvider whose calls wait until release is closed.
type heldProvider struct {
	*fakeProvider
	release <-chan struct{}
}

func (h *heldProvider) CallTool(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	select {
	case <-h.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return h.fakeProvider.CallTool(ctx, server, params)
}

// TestRunOutputIsLiveAndTokenized: what a script prints reaches a client
// that asked for progress while the script still runs (its tool call is
// held until the client has the progress message), tokenized as the result
// is, as a progress notification and as a log message; the result is
// unchanged.
func TestRunOutputIsLiveAndTokenized(t *testing.T) {
	checkLiveOutput(t, nil, "run_script", map[string]any{"code": liveScript})
}

// TestSkillOutputIsLiveAndTokenized: a skill a client calls as a tool
// (expose: hybrid, pinned) streams what it prints as run_script does.
func TestSkillOutputIsLiveAndTokenized(t *testing.T) {
	store := skills.NewFiles(filepath.Join(t.TempDir(), "skills"))
	saveLua(t, store, "noter", liveScript)
	checkLiveOutput(t, &Options{Skills: store}, "noter", map[string]any{})
}

// liveScript prints an address, then makes a call held until the client
// has heard of the address.
const liveScript = `print("erin@example.com") tools.notes.lookup_note{title = "x"} return 1`

// checkLiveOutput calls tool with args (expose: hybrid) from a client
// that asks for progress and logs at info: liveScript's address reaches
// it while the run runs, as [EMAIL_1], and the result holds it too.
func checkLiveOutput(t *testing.T, opts *Options, tool string, args map[string]any) {
	const email = "erin@example.com"
	sawProgress := make(chan struct{})
	hp := &heldProvider{fakeProvider: newFakeProvider("notes"), release: sawProgress}
	if opts == nil {
		opts = &Options{}
	}
	opts.Providers = []Provider{hp}
	cfg := testConfig()
	cfg.Expose.Mode = config.ExposeHybrid // run_script, and a skill pinned
	if tool != "run_script" {
		cfg.Expose.Pin = []string{"skills." + tool}
	}
	p, _ := startProxyWith(t, cfg, opts)

	var mu sync.Mutex
	var progress, logs []string
	c := mcp.NewClient(&mcp.Implementation{Name: "model"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			progress = append(progress, req.Params.Message)
			if len(progress) == 1 {
				close(sawProgress)
			}
		},
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			defer mu.Unlock()
			s, _ := req.Params.Data.(string)
			logs = append(logs, s)
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := p.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}

	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken("run-1")
	res, err := cs.CallTool(ctx, params)
	if err != nil || res.IsError {
		t.Fatalf("%s: %v %+v", tool, err, res)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !strings.Contains(text, "[EMAIL_1]\n") || strings.Contains(text, email) {
		t.Errorf("result %q: want the printed address as [EMAIL_1]", text)
	}
	waitFor(t, "the log message", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(logs) > 0
	})
	mu.Lock()
	defer mu.Unlock()
	for _, m := range append(progress, logs...) {
		if strings.Contains(m, email) {
			t.Errorf("the client saw the raw address live: %q", m)
		}
	}
	if len(progress) == 0 || progress[0] != "[EMAIL_1]\n" {
		t.Errorf("progress messages %q, want first %q", progress, "[EMAIL_1]\n")
	}
	if logs[0] != "[EMAIL_1]\n" {
		t.Errorf("log messages %q, want first %q", logs, "[EMAIL_1]\n")
	}
}

// TestProgressMessageLen: a message ends after a line, within
// progressChunk; a longer line is cut without splitting a character; a
// partial line waits one interval (held) before it goes out.
func TestProgressMessageLen(t *testing.T) {
	long := strings.Repeat("a", progressChunk-1) + "é" + "b"
	tests := []struct {
		name string
		p    string
		want int
	}{
		{"lines", "a\nb\nc", 4},
		{"partial waits for its end", "erin@exa", 0},
		{"long line cut before a split character", long, progressChunk - 1},
		{"long line cut at its last space", "ab " + long, 3},
		{"last line end within the chunk", "x\n" + long, 2},
	}
	for _, tt := range tests {
		if got := messageLen([]byte(tt.p)); got != tt.want {
			t.Errorf("%s: messageLen = %d, want %d", tt.name, got, tt.want)
		}
	}
}
