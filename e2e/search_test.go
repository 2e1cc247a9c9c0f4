package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSearchLearnsFromUse drives the npm filesystem and memory servers: a
// script that calls a tool after a search teaches toolfold to rank it for
// the search's words, kept in .toolfold/usage.json beside the config once
// toolfold exits (never the call's arguments); a tool without an
// outputSchema shows the result shape seen; signatures come in the
// language asked for.
func TestSearchLearnsFromUse(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cfg := writeConfig(t, configYAML(ups))
	p := startStdioProc(t, cfg)
	cs := p.cs

	// A tool without an outputSchema gains an observed shape in full detail.
	full := func(name string) string {
		return text(callTool(t, cs, "search_tools", map[string]any{"query": name, "detail": "full", "limit": 1}))
	}
	if before := full("everything.echo"); !strings.HasPrefix(before, "everything.echo\n") || strings.Contains(before, "\nReturns") {
		t.Fatalf("everything.echo should declare no result shape:\n%s", before)
	}

	py := text(callTool(t, cs, "search_tools", map[string]any{"query": "note down a fact about a colleague", "language": "python", "limit": 3}))
	js := text(callTool(t, cs, "search_tools", map[string]any{"query": "note down a fact about a colleague", "language": "javascript", "limit": 3}))
	if !strings.HasPrefix(py, "tools.") || !strings.Contains(py, "(") || !strings.HasPrefix(js, "await tools.") {
		t.Errorf("signatures not in the language asked for:\npython:\n%s\njavascript:\n%s", py, js)
	}
	scriptOK(t, cs, `return tools.memory.create_entities{entities = {
  {name = "zq-colleague", entityType = "person", observations = {"drinks zq-tea"}}}}`)
	scriptOK(t, cs, `return tools.everything.echo{message = "zq-hello"}`)
	if after := full("everything.echo"); !strings.Contains(after, "\nReturns (observed, not declared): string\n") {
		t.Errorf("no observed shape after a call:\n%s", after)
	}

	p.close()
	data, err := os.ReadFile(filepath.Join(filepath.Dir(cfg), ".toolfold", "usage.json"))
	if err != nil {
		t.Fatalf("usage not saved beside the config: %v", err)
	}
	if !strings.Contains(string(data), `"memory.create_entities"`) {
		t.Errorf("usage.json does not point at memory.create_entities:\n%s", data)
	}
	for _, v := range []string{"zq-", "hello", "tea"} {
		if strings.Contains(string(data), v) {
			t.Errorf("usage.json holds %q:\n%s", v, data)
		}
	}
}

// TestCLISearchLanguage: toolfold search --language spells signatures in
// that language, and refuses one it does not know.
func TestCLISearchLanguage(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	delete(ups, "everything")
	cfg := writeConfig(t, configYAML(ups))
	r := runCLI(t, "search", "-c", cfg, "--language", "python", "--limit", "1", "read a text file")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "tools.filesystem.read_text_file(path: string") {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "search", "-c", cfg, "--language", "cobol", "read a text file")
	if r.code == 0 || !strings.Contains(r.stderr, "python") {
		t.Errorf("cobol: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}
