package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// replayConfig writes a proxy.yaml whose upstream airtable is the test
// binary serving the search corpus's recorded airtable tools (a replay
// upstream, fixture_test.go), with extra appended; it returns the config's
// path.
func replayConfig(t *testing.T, extra string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	corpus, err := filepath.Abs("../../index/testdata/search-corpus")
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "proxy.yaml")
	yaml := fmt.Sprintf("upstreams:\n  airtable:\n    command: %q\n    args: [%q, airtable]\n    env: {%s: \"1\"}\n%s",
		exe, corpus, replayEnv, extra)
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// TestRunAudits: `toolfold run` and `toolfold skills run` write the audit
// lines a served run_script writes (each call, then the run), and a call
// the policy asks about fails closed, saying that a run from the command
// line has no one to ask and what to do instead.
func TestRunAudits(t *testing.T) {
	cfg := replayConfig(t, "policy:\n  rules:\n    - {match: airtable.list_bases, action: ask}\naudit:\n  file: audit.jsonl\n")
	script := func(code string) string {
		f := filepath.Join(t.TempDir(), "s.lua")
		if err := os.WriteFile(f, []byte(code), 0o600); err != nil {
			t.Fatal(err)
		}
		return f
	}
	code, out, errs := runCLI(t, "run", "-c", cfg, script(`return tools.airtable.list_tables{baseId = "app1"}`))
	if code != exitOK || !strings.Contains(out, `"tool":"list_tables"`) {
		t.Fatalf("an allowed call: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "run", "-c", cfg, script(`return tools.airtable.list_bases{}`))
	if code != exitFailed || !strings.Contains(out, "asks a person first") || !strings.Contains(out, noPersonInRun) ||
		strings.Contains(out, `"tool":"list_bases"`) {
		t.Fatalf("a call the policy asks about: exit %d, want %d, refused with %q\n%s%s", code, exitFailed, noPersonInRun, out, errs)
	}

	// A saved skill run from the command line, the same.
	skill := filepath.Join(t.TempDir(), "bases")
	if err := os.MkdirAll(skill, 0o700); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: bases\ndescription: List the bases\nlanguage: lua\n---\n"), 0o600)
	_ = os.WriteFile(filepath.Join(skill, "main.lua"), []byte("return tools.airtable.list_bases{}\n"), 0o600)
	if code, out, errs := runCLI(t, "skills", "-c", cfg, "add", skill); code != exitOK {
		t.Fatalf("skills add: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCLI(t, "skills", "-c", cfg, "run", "bases", "{}")
	if code != exitFailed || !strings.Contains(out, noPersonInRun) {
		t.Fatalf("a skill's call the policy asks about: exit %d, want %d, refused with %q\n%s%s", code, exitFailed, noPersonInRun, out, errs)
	}
	f, err := os.Open(filepath.Join(filepath.Dir(cfg), "audit.jsonl"))
	if err != nil {
		t.Fatalf("no audit file after two runs: %v", err)
	}
	defer f.Close()
	type line struct {
		Kind, RunID, Tool, Decision, Approval, Language string
		CodeHash                                        string `json:"code_hash"`
		IsError                                         bool   `json:"is_error"`
	}
	var got []line
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		var raw map[string]any
		_ = json.Unmarshal(sc.Bytes(), &raw)
		l.RunID, _ = raw["run_id"].(string)
		got = append(got, l)
	}
	want := []line{
		{Kind: "call", Tool: "airtable.list_tables", Decision: "allow", Language: "lua"},
		{Kind: "run", Language: "lua"},
		{Kind: "call", Tool: "airtable.list_bases", Decision: "ask", Approval: "unavailable", Language: "lua", IsError: true},
		{Kind: "run", Language: "lua", IsError: true},
		{Kind: "call", Tool: "airtable.list_bases", Decision: "ask", Approval: "unavailable", Language: "lua", IsError: true},
		{Kind: "run", Language: "lua", IsError: true},
	}
	if len(got) != len(want) {
		t.Fatalf("%d audit lines, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.Kind || g.Tool != w.Tool || g.Decision != w.Decision || g.Approval != w.Approval ||
			g.Language != w.Language || g.IsError != w.IsError || g.RunID == "" {
			t.Errorf("audit line %d: %+v, want %+v with a run id", i, g, w)
		}
		if g.Kind == "run" && !strings.HasPrefix(g.CodeHash, "sha256:") {
			t.Errorf("run line %d has no code hash: %+v", i, g)
		}
	}
	for i := 0; i < len(got); i += 2 {
		if got[i].RunID != got[i+1].RunID || i > 0 && got[i].RunID == got[i-1].RunID {
			t.Errorf("audit lines %d and %d: run ids %q and %q; want each run's call under its own run's id", i, i+1, got[i].RunID, got[i+1].RunID)
		}
	}
}
