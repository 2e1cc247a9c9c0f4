package proxy

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if l := newLearner(cfg, p.log); l.usage.Len() != p.learn.usage.Len() {
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
	l := newLearner(cfg, slog.New(slog.NewTextHandler(&logs, nil)))
	if l.usage == nil || l.usage.Len() != 0 || !strings.Contains(logs.String(), "starting afresh") {
		t.Errorf("corrupt file: usage %v, log %q", l.usage, logs.String())
	}
}
