package skillhost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skills"
)

func TestMain(m *testing.M) {
	if sandbox.IsChild() { // the Lua runner's child is this test binary
		sandbox.ChildMain()
	}
	os.Exit(m.Run())
}

// fakeHub runs a skill's code with the Lua runner directly, as the owner
// would without its run chains, and records what it was asked.
type fakeHub struct {
	mu      sync.Mutex
	ran     []string // skills run
	outside []string // skills called outside a script
	slotErr error    // Outside's answer
	refuse  error    // RunSkill's answer, when set
}

func (h *fakeHub) RunSkill(ctx context.Context, s *skills.Skill, r sandbox.Runner, args json.RawMessage, onOutput func([]byte)) (*sandbox.Result, error) {
	h.mu.Lock()
	h.ran = append(h.ran, s.Name)
	h.mu.Unlock()
	if h.refuse != nil {
		return nil, h.refuse
	}
	return r.Run(ctx, sandbox.Request{Code: s.Code, Language: s.Language, Args: args, OnOutput: onOutput,
		Limits: config.DefaultSandbox.Limits}, noHost{})
}

func (h *fakeHub) Outside(ctx context.Context, name string, do func(context.Context, func([]byte))) error {
	h.mu.Lock()
	h.outside = append(h.outside, name)
	h.mu.Unlock()
	if h.slotErr != nil {
		return h.slotErr
	}
	do(ctx, nil)
	return nil
}

// newTestProvider is a provider of skills kept in a fresh folder, with
// the Lua runner, started.
func newTestProvider(t *testing.T, o Options) (*Provider, *fakeHub) {
	t.Helper()
	hub := &fakeHub{}
	if o.Store == nil {
		o.Store = skills.NewFiles(filepath.Join(t.TempDir(), "skills"))
	}
	o.Sandbox = config.DefaultSandbox
	o.Runners = []sandbox.Runner{sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0]})}
	o.Hub = hub
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	o.Life = ctx
	sp := New(o)
	sp.Start(ctx)
	return sp, hub
}

func save(t *testing.T, sp *Provider, by Saver, req map[string]any) error {
	t.Helper()
	params, _ := json.Marshal(req)
	_, err := sp.Save(context.Background(), by, params)
	return err
}

// TestSavedSkillIsAToolAndRuns: a skill saved through the provider is at
// once a tool of the "skills" server (the owner told through Watch), and
// runs through the hub both from a script (Call) and outside one
// (CallTool, its printed output before its value).
func TestSavedSkillIsAToolAndRuns(t *testing.T) {
	sp, hub := newTestProvider(t, Options{})
	if got := sp.Servers(); len(got) != 0 {
		t.Fatalf("servers with no skills: %+v", got)
	}
	changed := 0
	sp.Watch(func() { changed++ })
	err := save(t, sp, Saver{Language: "lua"}, map[string]any{"name": "double", "description": "Double x", "notes": "x\n  a number",
		"code":       `print("doubling") return {y = args.x * 2}`,
		"parameters": map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "number"}}}})
	if err != nil {
		t.Fatal(err)
	}
	servers := sp.Servers()
	if changed != 1 || len(servers) != 1 || servers[0].Name != ServerName || len(servers[0].Tools) != 1 || servers[0].Err != "" {
		t.Fatalf("after a save: changed %d times, servers %+v", changed, servers)
	}
	if tool := servers[0].Tools[0]; tool.Name != "double" || tool.Description != "Double x (saved skill, lua)\n\nNotes: x a number" {
		t.Fatalf("the skill as a tool: %q %q", tool.Name, tool.Description)
	}
	if n := len(sp.Snapshot()); n != 1 {
		t.Fatalf("snapshot holds %d skills", n)
	}
	v, err := sp.Call(context.Background(), "double", json.RawMessage(`{"x": 2}`))
	if err != nil || string(v) != `{"y":4}` {
		t.Fatalf("a script's call: %s, %v", v, err)
	}
	res, err := sp.CallTool(context.Background(), ServerName, &mcp.CallToolParams{Name: "double", Arguments: map[string]any{"x": 3}})
	if err != nil || res.IsError {
		t.Fatalf("a call outside a script: %+v, %v", res, err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; text != "doubling\n"+`{"y":6}` {
		t.Fatalf("outside a script the answer is %q", text)
	}
	if res.StructuredContent == nil {
		t.Error("an object value is not the structured content")
	}
	if strings.Join(hub.ran, ",") != "double,double" || strings.Join(hub.outside, ",") != "double" {
		t.Fatalf("the hub ran %v, outside %v", hub.ran, hub.outside)
	}
}

// TestSaveRefusals: who may save (skills.save), the saver's Refuse, and
// code that does not compile, each said to the script.
func TestSaveRefusals(t *testing.T) {
	ok := map[string]any{"name": "ok", "description": "d", "code": "return 1"}
	cases := []struct {
		name string
		cfg  config.Skills
		by   Saver
		req  map[string]any
		want string
	}{
		{"http", config.Skills{}, Saver{Language: "lua", OverHTTP: true}, ok, "saving skills is off over HTTP"},
		{"off", config.Skills{NoSave: true}, Saver{Language: "lua"}, ok, "skills.save: false in proxy.yaml"},
		{"refused", config.Skills{}, Saver{Language: "lua", Refuse: func(string) string { return "holds a secret" }}, ok, "holds a secret"},
		{"syntax", config.Skills{}, Saver{Language: "lua"}, map[string]any{"name": "bad", "description": "d", "code": "return ("}, "does not compile: skill:1: "},
		{"language", config.Skills{}, Saver{Language: "python"}, ok, "python is not available here"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sp, _ := newTestProvider(t, Options{Config: c.cfg})
			err := save(t, sp, c.by, c.req)
			var te *sandbox.ToolError
			if !errors.As(err, &te) || !strings.Contains(te.Msg, c.want) || !strings.HasPrefix(te.Msg, "skills.save: ") {
				t.Fatalf("got %v, want a tool error saying %q", err, c.want)
			}
			if len(sp.Servers()) != 0 {
				t.Fatal("a refused skill is listed")
			}
		})
	}
}

// TestCallFailures: what a script's call of a skill says when it cannot
// run or fails: each a *sandbox.ToolError naming the skill.
func TestCallFailures(t *testing.T) {
	sp, hub := newTestProvider(t, Options{})
	ctx := context.Background()
	if err := sp.o.Store.Save(ctx, &skills.Skill{Name: "py", Description: "d", Language: "python", Code: "return 1"}, false); err != nil {
		t.Fatal(err)
	}
	if err := save(t, sp, Saver{Language: "lua"}, map[string]any{"name": "boom", "description": "d", "code": "\nerror('no way')"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"missing": "skills.missing: no such skill",
		"py":      "skills.py: is written in python, which is not available here",
		"boom":    "skills.boom failed: boom/main.lua:2: ",
	} {
		_, err := sp.Call(ctx, name, nil)
		var te *sandbox.ToolError
		if !errors.As(err, &te) || !strings.Contains(te.Msg, want) || te.Tool != "skills."+name {
			t.Errorf("calling %s: %v, want %q", name, err, want)
		}
	}
	hub.refuse = Errorf("boom", "no time left")
	if _, err := sp.Call(ctx, "boom", nil); err != hub.refuse {
		t.Errorf("the hub's refusal became %v", err)
	}
}

// TestCallToolOutside: a call outside a script waits for the hub's run
// slot (its failure is the call's error, and nothing runs), names a
// server of the skills, and a failing skill is an isError result.
func TestCallToolOutside(t *testing.T) {
	sp, hub := newTestProvider(t, Options{})
	ctx := context.Background()
	if err := save(t, sp, Saver{Language: "lua"}, map[string]any{"name": "boom", "description": "d", "code": "error('no way')"}); err != nil {
		t.Fatal(err)
	}
	if _, err := sp.CallTool(ctx, "other", &mcp.CallToolParams{Name: "boom"}); err == nil {
		t.Error("a server not the skills' was called")
	}
	res, err := sp.CallTool(ctx, ServerName, &mcp.CallToolParams{Name: "boom"})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "no way") {
		t.Fatalf("a failing skill: %+v, %v", res, err)
	}
	hub.slotErr = errors.New("no slot")
	hub.ran = nil
	if _, err := sp.CallTool(ctx, ServerName, &mcp.CallToolParams{Name: "boom"}); err != hub.slotErr || len(hub.ran) != 0 {
		t.Fatalf("without a slot: %v, ran %v", err, hub.ran)
	}
}

// failingStore is a store whose List fails while down is set.
type failingStore struct {
	skills.Store
	down atomic.Bool
}

func (f *failingStore) List(ctx context.Context) ([]*skills.Skill, error) {
	if f.down.Load() {
		return nil, errors.New("store away")
	}
	return f.Store.List(ctx)
}

// TestStoreBlipKeepsTheSkills: a store that cannot be read keeps the
// skills last read in the list; one never read shows the server down.
func TestStoreBlipKeepsTheSkills(t *testing.T) {
	fs := &failingStore{Store: skills.NewFiles(filepath.Join(t.TempDir(), "skills"))}
	sp, _ := newTestProvider(t, Options{Store: fs})
	if err := save(t, sp, Saver{Language: "lua"}, map[string]any{"name": "one", "description": "d", "code": "return 1"}); err != nil {
		t.Fatal(err)
	}
	fs.down.Store(true)
	sp.reload(context.Background())
	if s := sp.Servers(); len(s) != 1 || len(s[0].Tools) != 1 || s[0].Err != "" {
		t.Fatalf("after a blip: %+v", s)
	}
	away := &failingStore{Store: skills.NewFiles(t.TempDir())}
	away.down.Store(true)
	empty := New(Options{Store: away})
	empty.reload(context.Background())
	if s := empty.Servers(); len(s) != 1 || !strings.Contains(s[0].Err, "cannot read the skills: store away") {
		t.Fatalf("never read: %+v", s)
	}
}

func TestCalled(t *testing.T) {
	for name, want := range map[string]string{"skills.x": "x", "skills.x.y": "", "github.x": "", "skills": ""} {
		if got := Called(name); got != want {
			t.Errorf("Called(%q) = %q, want %q", name, got, want)
		}
	}
}
