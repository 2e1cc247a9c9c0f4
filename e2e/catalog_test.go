package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCLISearchCached: the first `toolfold search` connects and caches
// the upstreams' tool lists; the next answers the same from the cache,
// without starting a server.
func TestCLISearchCached(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cfg := writeConfig(t, configYAML(ups))
	first := runCLI(t, "search", "-c", cfg, "--detail", "name", "read a text file")
	if first.code != 0 || len(qualifiedNames(first.stdout)) == 0 {
		t.Fatalf("first search: exit %d\n%s\nstderr:\n%s", first.code, first.stdout, first.stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), ".toolfold", "catalog.json")); err != nil {
		t.Fatalf("no catalog cache beside the config: %v", err)
	}
	second := runCLI(t, "search", "-c", cfg, "--detail", "name", "--log-level", "info", "read a text file")
	if second.code != 0 || second.stdout != first.stdout {
		t.Errorf("cached search: exit %d\n%s\nwant the first search's\n%s", second.code, second.stdout, first.stdout)
	}
	if !strings.Contains(second.stderr, "answering from the catalog cache") || strings.Contains(second.stderr, "upstream ready") {
		t.Errorf("the second search did not answer from the cache alone:\n%s", second.stderr)
	}
}

// TestServeSearchesCachedCatalogWhileConnecting: serve answers search_tools
// from the catalog cache while a slow upstream is still starting, its tools
// marked as connecting, and a call to one waits for the connection.
func TestServeSearchesCachedCatalogWhileConnecting(t *testing.T) {
	t.Parallel()
	mem := npmUpstream(t, "memory")
	dir := t.TempDir()
	delay := filepath.Join(dir, "delay")
	// The delay is read from a file, so the upstream's settings (which key
	// the cache) are the same for the listing run and the slow one.
	script := fmt.Sprintf("#!/bin/sh\nsleep \"$(cat %s 2>/dev/null || echo 0)\"\nexec %s %s\n",
		shellQuote(delay), shellQuote(mem.Command), shellQuote(mem.Args[0]))
	wrapper := filepath.Join(dir, "slow-memory.sh")
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": {Command: wrapper,
		Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}}}))
	if r := runCLI(t, "search", "-c", cfg, "--refresh", "--detail", "name", "create entities"); r.code != 0 {
		t.Fatalf("listing run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if err := os.WriteFile(delay, []byte("12"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cs := startStdio(t, cfg)
	// "connecting" says the answer came before the upstream had connected
	// (without the cache, serve waits for it and lists its own tools); no
	// clock is read, since a loaded machine starts toolfold slowly.
	out := text(callTool(t, cs, "search_tools", map[string]any{"query": "create entities in the knowledge graph", "detail": "name", "limit": 3}))
	if !strings.Contains(out, "memory.create_entities") || !strings.Contains(out, "connecting") {
		t.Fatalf("search_tools while the upstream starts:\n%s\nwant memory.create_entities, marked as connecting", out)
	}
	var n int
	returned(t, scriptOK(t, cs, `return #tools.memory.read_graph{}.entities`), &n)
	if n != 0 {
		t.Errorf("read_graph: %d entities in a new graph", n)
	}
	if time.Since(start) < 12*time.Second {
		t.Errorf("the call returned before the upstream could have started")
	}
}

// TestCLIRunStartsOnlyCalled: `toolfold run` starts only the upstreams
// its script calls once their tools are in the catalog cache. The first
// run, with no cache yet, starts every upstream (their tool names are not
// known otherwise) and caches their lists; then a run of `return 1`
// starts none, and a script calling memory's tool starts memory alone.
// Each upstream's command writes a marker file when it starts.
func TestCLIRunStartsOnlyCalled(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	delete(ups, "everything")
	dir := t.TempDir()
	marker := map[string]string{}
	for name, u := range ups {
		marker[name] = filepath.Join(dir, name+".pid")
		ups[name] = withPIDFile(t, u, marker[name])
	}
	cfg := writeConfig(t, configYAML(ups))
	script := func(code string) string {
		path := filepath.Join(t.TempDir(), "s.lua")
		if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	started := func() (names []string) {
		for _, name := range []string{"filesystem", "memory"} {
			if _, err := os.Stat(marker[name]); err == nil {
				names = append(names, name)
			}
			_ = os.Remove(marker[name])
		}
		return names
	}
	runs := []struct {
		what, code, want string
		started          []string
	}{
		{"first run, no cache yet", "return 1", "=> 1", []string{"filesystem", "memory"}},
		{"return 1", "return 1", "=> 1", nil},
		{"memory's tool", "return #tools.memory.read_graph{}.entities", "=> 0", []string{"memory"}},
	}
	for _, r := range runs {
		res := runCLI(t, "run", "-c", cfg, script(r.code))
		if res.code != 0 || !strings.HasPrefix(res.stdout, r.want) {
			t.Fatalf("%s: exit %d\n%s\nstderr:\n%s", r.what, res.code, res.stdout, res.stderr)
		}
		if got := started(); strings.Join(got, ",") != strings.Join(r.started, ",") {
			t.Errorf("%s: started %v, want %v\nstderr:\n%s", r.what, got, r.started, res.stderr)
		}
	}
}
