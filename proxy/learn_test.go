package proxy

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
	if p.learn.usage.Len() == 0 {
		t.Fatal("nothing learned")
	}
	p.learn.close()
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
	if l := newLearner(cfg, nil, p.log); l.usage.Len() != p.learn.usage.Len() {
		t.Errorf("reloaded %d pairs, saved %d", l.usage.Len(), p.learn.usage.Len())
	}

	off := testConfig(stdioUpstream("calc"))
	offDir := t.TempDir()
	off.File, off.Dir, off.Search.NoLearn = filepath.Join(offDir, "proxy.yaml"), offDir, true
	q, cs2 := startProxy(t, off)
	callText(t, cs2, "search_tools", map[string]any{"query": "total of two numbers"})
	runLua(t, cs2, `return tools.calc.add{a = 1, b = 2}`)
	q.learn.close()
	if q.learn.searchUsage() != nil {
		t.Error("learn: false still learns")
	}
	if _, err := os.Stat(filepath.Join(offDir, ".toolfold")); !os.IsNotExist(err) {
		t.Errorf("learn: false wrote %v", err)
	}
}

func TestLearnCorruptFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".toolfold", "usage.json")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("{not json"), 0o644)
	cfg := testConfig()
	cfg.File, cfg.Dir = filepath.Join(dir, "proxy.yaml"), dir
	var logs strings.Builder
	l := newLearner(cfg, nil, slog.New(slog.NewTextHandler(&logs, nil)))
	if l.usage == nil || l.usage.Len() != 0 || !strings.Contains(logs.String(), "starting afresh") {
		t.Errorf("corrupt file: usage %v, log %q", l.usage, logs.String())
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
	p1.learn.close()
	p2.learn.close()
	data, err := st.Get(context.Background(), usageKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"calc.add"`, `"calc.echo-text"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the shared usage lacks %s (one replica overwrote the other): %s", want, data)
		}
	}
	if l := newLearner(cfg, st, p1.log); l.usage.Len() < p1.learn.usage.Len() {
		t.Errorf("a new replica loaded %d pairs, fewer than replica 1 saved (%d)", l.usage.Len(), p1.learn.usage.Len())
	}
}

// A script's tool call searches each earlier recent query at most once,
// and none it has taught the tool already: a session that asked the same
// search many times does not pay a search per repetition in every call.
func TestLearnSearchesEachQueryOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(stdioUpstream("calc"))
	cfg.File, cfg.Dir = filepath.Join(dir, "proxy.yaml"), dir
	_, cs := startProxy(t, cfg)
	for range 5 {
		callText(t, cs, "search_tools", map[string]any{"query": "total of two numbers"})
	}
	callText(t, cs, "search_tools", map[string]any{"query": "echo some text back"})
	var searched []string
	findsProbe = func(q string) { searched = append(searched, q) }
	t.Cleanup(func() { findsProbe = nil })
	for range 3 {
		if text, isErr := runLua(t, cs, `return tools.calc.add{a = 1, b = 2}`); isErr {
			t.Fatalf("script failed: %s", text)
		}
	}
	// The latest query needs no search; the earlier one, asked five
	// times, is searched once, in the first run.
	if len(searched) != 1 || searched[0] != "total of two numbers" {
		t.Errorf("finds searched %q, want the earlier query once", searched)
	}
}
