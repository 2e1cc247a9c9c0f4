package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// fakeProvider is an in-process provider with one server, as skills are:
// its tools answer from memory.
type fakeProvider struct {
	server string

	mu      sync.Mutex
	tools   []*mcp.Tool
	changed func()
	calls   []string // "tool args" of each call
}

func newFakeProvider(server string) *fakeProvider {
	return &fakeProvider{server: server, tools: []*mcp.Tool{{
		Name:        "lookup_note",
		Description: "Look up a saved note by its title.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}}}
}

func (f *fakeProvider) Name() string { return "fake" }

func (f *fakeProvider) Servers() []ProvidedServer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []ProvidedServer{{Name: f.server, Description: "saved notes", State: StateReady, Tools: append([]*mcp.Tool(nil), f.tools...)}}
}

func (f *fakeProvider) CallTool(_ context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	args, _ := json.Marshal(params.Arguments)
	f.mu.Lock()
	f.calls = append(f.calls, server+"."+params.Name+" "+string(args))
	f.mu.Unlock()
	var in struct{ Title string }
	_ = json.Unmarshal(args, &in)
	if in.Title == "missing" {
		return nil, errors.New("no note; ask ann.lee@example.com")
	}
	// The address stands for personal data a provider's tool may return.
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "note " + in.Title + ": write to ann.lee@example.com"}}}, nil
}

func (f *fakeProvider) Watch(changed func()) { f.changed = changed }

// addTool adds a tool and tells the proxy, as a skill saved mid-session.
func (f *fakeProvider) addTool(t *mcp.Tool) {
	f.mu.Lock()
	f.tools = append(f.tools, t)
	f.mu.Unlock()
	f.changed()
}

func (f *fakeProvider) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func TestProviderToolsAreSearchableAndCallableFromScripts(t *testing.T) {
	fp := newFakeProvider("notes")
	p, cs := startProxyWith(t, testConfig(), &Options{Providers: []Provider{fp}})

	text, _ := callText(t, cs, "search_tools", map[string]any{"query": "saved note by title"})
	if !strings.Contains(text, "tools.notes.lookup_note{title: string}") {
		t.Errorf("search_tools does not find the provider's tool with its parameters:\n%s", text)
	}
	if d := p.AdvertisedTools()[0].Description; !strings.Contains(d, "notes (saved notes; 1 tools)") {
		t.Errorf("search_tools' server list does not name the provider's server: %s", d)
	}

	out, failed := runLua(t, cs, `return tools.notes.lookup_note{title = "plan"}`)
	if failed || !strings.Contains(out, "note plan: write to [EMAIL_1]") {
		t.Errorf("run_script calling the provider's tool: failed=%v\n%s", failed, out)
	}
	if strings.Contains(out, "ann.lee@example.com") {
		t.Errorf("a provider's result reached the client untokenized:\n%s", out)
	}
	if diff := cmp.Diff([]string{`notes.lookup_note {"title":"plan"}`}, fp.callLog()); diff != "" {
		t.Errorf("calls the provider got (-want +got):\n%s", diff)
	}

	// A tool added later is searchable once the provider says so.
	fp.addTool(&mcp.Tool{Name: "archive_note", Description: "Move a saved note to the archive.", InputSchema: json.RawMessage(`{"type":"object"}`)})
	text, _ = callText(t, cs, "search_tools", map[string]any{"query": "archive a note"})
	if !strings.Contains(text, "notes.archive_note") {
		t.Errorf("search_tools does not find the tool added after start:\n%s", text)
	}
}

func TestProviderToolsInPassthrough(t *testing.T) {
	fp := newFakeProvider("notes")
	cfg := testConfig()
	cfg.Expose.Mode = config.ExposePassthrough
	_, cs := startProxyWith(t, cfg, &Options{Providers: []Provider{fp}})
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()

	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range lt.Tools {
		names = append(names, tool.Name)
	}
	if diff := cmp.Diff([]string{"lookup_note"}, names); diff != "" {
		t.Fatalf("tools/list in passthrough (-want +got):\n%s", diff)
	}
	if a := lt.Tools[0].Annotations; a == nil || !a.ReadOnlyHint {
		t.Errorf("the provider's annotations are lost: %+v", a)
	}
	text, isErr := callText(t, cs, "lookup_note", map[string]any{"title": "x"})
	if isErr || text != "note x: write to [EMAIL_1]" {
		t.Errorf("tools/call of the provider's tool: isError=%v %q", isErr, text)
	}

	fp.addTool(&mcp.Tool{Name: "archive_note", InputSchema: json.RawMessage(`{"type":"object"}`)})
	lt, err = cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != 2 {
		t.Errorf("tools/list after the provider added a tool: %d tools, want 2", len(lt.Tools))
	}
}

func TestProviderServerNamesDoNotCollide(t *testing.T) {
	first, second := newFakeProvider("notes"), newFakeProvider("notes")
	second.tools[0].Name = "other_tool"
	p, cs := startProxyWith(t, testConfig(), &Options{Providers: []Provider{first, second}})

	out, failed := runLua(t, cs, `return tools.notes.lookup_note{title = "a"}`)
	if failed {
		t.Fatalf("calling the first provider's tool: %s", out)
	}
	if len(first.callLog()) != 1 || len(second.callLog()) != 0 {
		t.Errorf("calls: first %v, second %v; want the first provider to own the server", first.callLog(), second.callLog())
	}
	if _, ok := p.Index().Resolve("notes.other_tool"); ok {
		t.Error("the second provider's server of the same name is in the catalog")
	}
}

func TestProviderCallsAreTraced(t *testing.T) {
	rig := newTelemetryRig(t, false)
	opts := *rig.opts
	opts.Providers = []Provider{newFakeProvider("notes")}
	_, cs := startProxyWith(t, testConfig(), &opts)
	if out, failed := runLua(t, cs, `return tools.notes.lookup_note{title = "a"}`); failed {
		t.Fatalf("run_script: %s", out)
	}
	_, tree := rig.trace(t, "tools/call run_script")
	var script *tracetest.SpanStub
	for i, s := range tree {
		if s.Name == "execute_script" {
			script = &tree[i]
		}
	}
	if script == nil {
		t.Fatalf("no execute_script span among %v", spanNames(tree))
	}
	kids := childrenOf(tree, *script)
	if len(kids) != 1 || kids[0].Name != "tools/call notes.lookup_note" || kids[0].SpanKind != trace.SpanKindInternal {
		t.Fatalf("children of the script's span: %v, want one INTERNAL tools/call notes.lookup_note", spanNames(kids))
	}
	checkAttrs(t, kids[0], map[string]string{"toolfold.provider": "fake", "toolfold.server": "notes",
		"gen_ai.tool.name": "lookup_note", "toolfold.outcome": "ok"})
	want := map[string]string{"toolfold.provider": "fake", "toolfold.server": "notes", "toolfold.outcome": "ok"}
	if got := sumOf(rig.metrics(t)["toolfold.provider.tool_calls"], want); got != 1 {
		t.Errorf("toolfold.provider.tool_calls %v = %d, want 1", want, got)
	}
}

// TestOwnProviderEdge: a call of a tool of toolfold's own provider meets
// its edge (ownChain) in the declared order, and its result and its error
// reach the client tokenized there, as an upstream's do on the upstream
// edge: providers.dispatch treats every provider alike.
func TestOwnProviderEdge(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	chainProbe = func(edge, name, _ string) {
		if edge == "own" {
			mu.Lock()
			seen = append(seen, name)
			mu.Unlock()
		}
	}
	t.Cleanup(func() { chainProbe = nil })
	cfg := testConfig()
	cfg.Expose.Mode = config.ExposePassthrough
	_, cs := startProxyWith(t, cfg, &Options{Providers: []Provider{newFakeProvider("notes")}})

	if text, isErr := callText(t, cs, "lookup_note", map[string]any{"title": "x"}); isErr || text != "note x: write to [EMAIL_1]" {
		t.Errorf("the provider's result: isError=%v %q, want it tokenized", isErr, text)
	}
	mu.Lock()
	got := slices.Clone(seen)
	mu.Unlock()
	if diff := cmp.Diff([]string{"trace", "pii"}, got); diff != "" {
		t.Errorf("the provider's edge (-declared +met):\n%s", diff)
	}
	text, isErr := callText(t, cs, "lookup_note", map[string]any{"title": "missing"})
	if !isErr || strings.Contains(text, "ann.lee@example.com") || !strings.Contains(text, "[EMAIL_1]") {
		t.Errorf("the provider's error: isError=%v %q, want it tokenized", isErr, text)
	}
}
