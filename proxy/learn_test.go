package proxy

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/learn"
	"github.com/toolfold/toolfold/store"
)

// TestLearnFromUse: a tool a script calls after a search is learned for the
// search's words, saved beside the config on close, and loaded by the next
// proxy; with search.learn false nothing is learned or written.
func TestLearnFromUse(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(stdioUpstream("calc"))
	cfg.File, cfg.Dir = filepath.Join(dir, "proxy.yaml"), dir
	p, cs := startProxy(t, cfg)
	if _, isErr := callText(t, cs, "search_tools", map[string]any{"query": "total of two numbers"}); isErr {
		t.Fatal("search failed")
	}
	if text, isErr := runLua(t, cs, `search_tools("echo some text back")
return {tools.calc.add{a = 20417, b = 3}, tools.calc.echo_text{text = "zebra-secret"}}`); isErr {
		t.Fatalf("script failed: %s", text)
	}
	if p.learn.Usage().Len() == 0 {
		t.Fatal("nothing learned")
	}
	p.learn.Close()
	path := filepath.Join(dir, ".toolfold", "usage.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("usage not saved beside the config: %v", err)
	}
	for _, want := range []string{`"calc.add"`, `"number"`, `"calc.echo-text"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("usage.json lacks %s: %s", want, data)
		}
	}
	for _, bad := range []string{"20417", "zebra", "secret"} {
		if strings.Contains(string(data), bad) {
			t.Errorf("usage.json holds an argument value %q: %s", bad, data)
		}
	}
	if l := learn.New(cfg, nil, p.log); l.Usage().Len() != p.learn.Usage().Len() {
		t.Errorf("reloaded %d pairs, saved %d", l.Usage().Len(), p.learn.Usage().Len())
	}

	off := testConfig(stdioUpstream("calc"))
	offDir := t.TempDir()
	off.File, off.Dir, off.Search.NoLearn = filepath.Join(offDir, "proxy.yaml"), offDir, true
	q, cs2 := startProxy(t, off)
	callText(t, cs2, "search_tools", map[string]any{"query": "total of two numbers"})
	runLua(t, cs2, `return tools.calc.add{a = 1, b = 2}`)
	q.learn.Close()
	if q.learn.Usage() != nil {
		t.Error("learn: false still learns")
	}
	if _, err := os.Stat(filepath.Join(offDir, ".toolfold")); !os.IsNotExist(err) {
		t.Errorf("learn: false wrote %v", err)
	}
}

// TestLearnSharedStore: replicas on one shared store (store: redis://…;
// a file store stands in here) each save what they learned without
// overwriting what the others saved.
func TestLearnSharedStore(t *testing.T) {
	st, err := store.Files(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(stdioUpstream("calc"))
	cfg.Store.URL = "redis://127.0.0.1:1/0" // says "shared"; the store given is what is used
	replica := func() (*Proxy, *mcp.ClientSession) {
		return startProxyWith(t, cfg, &Options{Store: st})
	}
	p1, cs1 := replica()
	p2, cs2 := replica()
	callText(t, cs1, "search_tools", map[string]any{"query": "total of two numbers"})
	runLua(t, cs1, `return tools.calc.add{a = 1, b = 2}`)
	callText(t, cs2, "search_tools", map[string]any{"query": "repeat my words back"})
	runLua(t, cs2, `return tools.calc.echo_text{text = "hi"}`)
	p1.learn.Close()
	p2.learn.Close()
	data, err := st.Get(context.Background(), learn.UsageKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"calc.add"`, `"calc.echo-text"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the shared usage lacks %s (one replica overwrote the other): %s", want, data)
		}
	}
	if l := learn.New(cfg, st, p1.log); l.Usage().Len() < p1.learn.Usage().Len() {
		t.Errorf("a new replica loaded %d pairs, fewer than replica 1 saved (%d)", l.Usage().Len(), p1.learn.Usage().Len())
	}
}
