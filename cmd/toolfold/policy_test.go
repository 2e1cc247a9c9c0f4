package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/store"
)

// writeConfig writes a proxy.yaml with extra appended into a new
// directory and returns its path.
func writeConfig(t *testing.T, extra string) string {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "proxy.yaml")
	if err := os.WriteFile(cfg, []byte("upstreams:\n  memory:\n    command: /bin/true\n"+extra), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestAuditCommand(t *testing.T) {
	cfg := writeConfig(t, "audit:\n  file: .toolfold/audit.jsonl\n")
	file := filepath.Join(filepath.Dir(cfg), ".toolfold", "audit.jsonl")
	l, err := audit.Open(config.Audit{File: file, MaxSizeMB: 1, MaxBackups: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, r := range []audit.Record{
		{Kind: audit.KindCall, Time: now.Add(-2 * time.Hour), Session: "s-old", RunID: "r1", Tool: "memory.read_graph", Decision: "allow",
			Rule: "the policy default (allow)", Duration: 3 * time.Millisecond, ResultBytes: 99},
		{Kind: audit.KindCall, Time: now.Add(-10 * time.Minute), Session: "s-new", RunID: "r2", Tool: "memory.create_entities", Decision: "ask",
			Rule: "policy rule 1 (memory.create_*)", Approval: "allow_once", ResultBytes: 12, Args: json.RawMessage(`{"name":"[EMAIL_1]"}`)},
		{Kind: audit.KindCall, Time: now.Add(-9 * time.Minute), Session: "s-new", RunID: "r2", Tool: "memory.delete_entities", Decision: "deny",
			Rule: "policy rule 2 (memory.delete_*)", IsError: true, Error: "memory.delete_entities: denied by policy rule 2"},
		{Kind: audit.KindRun, Time: now.Add(-8 * time.Minute), Session: "s-new", RunID: "r2", Language: "lua", CodeHash: "sha256:0123456789abcdef", Calls: 2},
		{Kind: audit.KindFlow, Time: now.Add(-7 * time.Minute), Session: "s-new", RunID: "r3", Tool: "mail.send", Token: "[EMAIL_1]",
			TokenType: "EMAIL", Origin: "crm.get", Decision: "ask", Rule: "the flow default (another server: ask)", Approval: "unavailable"},
	} {
		if err := l.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	tests := []struct {
		name       string
		args       []string
		code       int
		want, miss []string
	}{
		{"all", nil, 0, []string{"TIME (UTC)", "memory.read_graph", "allow by the policy default (allow)",
			"ask by rule 1 (memory.create_*)", "allow_once", "deny by rule 2 (memory.delete_*)", "error: memory.delete_entities: denied",
			"run lua sha256:0123456789abcdef, 2 calls", "flow [EMAIL_1] EMAIL from crm.get to mail.send",
			"ask by the flow default (another server: ask)"}, []string{"ARGS"}},
		{"since", []string{"--since", "1h"}, 0, []string{"memory.create_entities"}, []string{"memory.read_graph"}},
		{"tool", []string{"--tool", "memory.*_entities"}, 0, []string{"memory.create_entities", "memory.delete_entities"},
			[]string{"memory.read_graph", "run lua"}},
		{"session", []string{"--session", "s-old"}, 0, []string{"memory.read_graph"}, []string{"memory.create_entities"}},
		{"args", []string{"--args", "--tool", "memory.create_*"}, 0, []string{"ARGS", `{"name":"[EMAIL_1]"}`}, nil},
		{"file flag", []string{"--file", file, "-c", "/nonexistent.yaml", "--session", "nobody"}, 0, []string{"no audit records match"}, nil},
		{"bad since", []string{"--since", "yesterday"}, exitUsage, []string{`--since "yesterday": write a duration`}, nil},
		{"bad tool glob", []string{"--tool", "memory.[x"}, exitUsage, []string{`--tool: invalid glob "memory.[x": has a [ without its ]`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errs := runCLI(t, append([]string{"audit", "-c", cfg}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tt.code, errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(out+errs, w) {
					t.Errorf("output lacks %q:\n%s%s", w, out, errs)
				}
			}
			for _, m := range tt.miss {
				if strings.Contains(out, m) {
					t.Errorf("output has %q:\n%s", m, out)
				}
			}
		})
	}
}

func TestAuditCommandOff(t *testing.T) {
	cfg := writeConfig(t, "")
	code, _, errs := runCLI(t, "audit", "-c", cfg)
	if code != exitUsage || !strings.Contains(errs, "the audit is off in "+cfg+": add audit: {file: .toolfold/audit.jsonl}") {
		t.Errorf("audit without the section: %d %q", code, errs)
	}
	cfg = writeConfig(t, "audit: {file: none-yet.jsonl}\n")
	if code, out, _ := runCLI(t, "audit", "-c", cfg); code != 0 || !strings.Contains(out, "no audit records yet in") {
		t.Errorf("audit before any record: %d %q", code, out)
	}
}

func TestToolsCommand(t *testing.T) {
	cfgFile := writeConfig(t, "")
	cfg, err := config.Load(cfgFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Files(cfg.StoreDir())
	if err != nil {
		t.Fatal(err)
	}
	pins := policy.NewPins(st)
	ctx := context.Background()
	pins.Check(ctx, "memory.create_entities", "h1")
	pins.Check(ctx, "memory.create_entities", "h2")
	pins.Check(ctx, "memory.read_graph", "r1")

	steps := []struct {
		args       []string
		code       int
		want, miss string
	}{
		{[]string{"pins"}, 0, "memory.read_graph       unchanged", ""},
		{[]string{"changed"}, 0, "memory.create_entities  changed", "memory.read_graph"},
		{[]string{"approve", "memory.create_entities", "memory.nope"}, exitFailed, "approved the new definition of memory.create_entities", ""},
		{[]string{"approve", "memory.nope"}, exitFailed, `no pin for "memory.nope"`, ""},
		{[]string{"changed"}, 0, "no tool changed since it was pinned", ""},
		{[]string{"approve", "memory.create_entities"}, 0, "has not changed since it was pinned", ""},
		{nil, exitUsage, "usage: toolfold tools", "wrong arguments"}, // no command: the usage, not an empty name
		{[]string{"approve"}, exitUsage, "wrong arguments", ""},
		{[]string{"changed", "x"}, exitUsage, "wrong arguments", ""},
	}
	for _, s := range steps {
		code, out, errs := runCLI(t, append([]string{"tools", "-c", cfgFile}, s.args...)...)
		if code != s.code || !strings.Contains(out+errs, s.want) || (s.miss != "" && strings.Contains(out+errs, s.miss)) {
			t.Errorf("tools %s: exit %d (want %d)\n%s%s\nwant %q, not %q", strings.Join(s.args, " "), code, s.code, out, errs, s.want, s.miss)
		}
	}
}

func TestPolicyAndAuditStatus(t *testing.T) {
	tests := []struct {
		src, policy, audit string
	}{
		{"", "allow every call (no policy section)", "off (no audit: section)"},
		{"policy:\n  default: ask\n  approval_timeout: 30s\n  rules:\n    - {match: memory.delete_*, action: deny}\n    - {match: memory.read_*, action: allow, rate: 5/s}\n" +
			"audit: {file: /var/log/a.jsonl, max_size_mb: 5, max_backups: 2}\n",
			"default ask, 2 rules (1 deny, 1 allow, 1 rate); a person has 30s to answer an ask",
			"/var/log/a.jsonl, rotated past 5 MB, 2 kept; runs' code not kept, only a hash (audit.capture_code: true keeps it); toolfold audit prints it"},
		{"audit: {file: /var/log/a.jsonl, capture_code: true}\n", "allow every call",
			"/var/log/a.jsonl, rotated past 100 MB, 10 kept; runs' code kept, tokenized (audit.capture_code); toolfold audit prints it"},
	}
	for _, tt := range tests {
		cfg, err := config.Load(writeConfig(t, tt.src), nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := policyStatus(cfg.Policy); !strings.HasPrefix(got, tt.policy) {
			t.Errorf("policyStatus = %q, want %q", got, tt.policy)
		}
		if got := auditStatus(cfg.Audit); got != tt.audit {
			t.Errorf("auditStatus = %q, want %q", got, tt.audit)
		}
	}
}

func TestPinsStatus(t *testing.T) {
	ctx := context.Background()
	if line, bad := pinsStatus(ctx, config.Policy{}, nil); line != "none (no store)" || bad {
		t.Errorf("no store: %q %v", line, bad)
	}
	if line, _ := pinsStatus(ctx, config.Policy{NoPinTools: true}, nil); !strings.HasPrefix(line, "off (policy.pin_tools: false)") {
		t.Errorf("pins off: %q", line)
	}
	st, _ := store.Files(t.TempDir())
	pins := policy.NewPins(st)
	pins.Check(ctx, "a.b", "1")
	if line, _ := pinsStatus(ctx, config.Policy{}, st); line != "1 tool pinned, none changed" {
		t.Errorf("pinsStatus = %q", line)
	}
	pins.Check(ctx, "a.b", "2")
	pins.Check(ctx, "a.c", "1")
	want := "2 tools pinned; changed since pinned (each call asks first until approved with toolfold tools approve NAME): a.b"
	if line, bad := pinsStatus(ctx, config.Policy{}, st); line != want || bad {
		t.Errorf("pinsStatus = %q, %v\nwant %q", line, bad, want)
	}
}

// TestCheckShowsRefused: check names the entries a signed store refuses
// (written by someone without store.key), and a pin held because its
// stored one was refused.
func TestCheckShowsRefused(t *testing.T) {
	ctx := context.Background()
	cfgFile := writeConfig(t, "store: {key: 0123456789abcdef0123456789abcdef}\n")
	cfg, err := config.Load(cfgFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStore(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := store.Files(cfg.StoreDir())
	_ = raw.Set(ctx, "skills/planted", []byte(`{"name":"planted"}`))
	pins := policy.NewPins(st)
	pins.Check(ctx, "a.b", "1")
	line, ok := storeStatus(ctx, cfg, st)
	if ok || !strings.Contains(line, "entries signed") || !strings.Contains(line, "refused, not signed with store.key") || !strings.Contains(line, "skills/planted") {
		t.Errorf("storeStatus = %q, %v", line, ok)
	}
	keys, _ := raw.Keys(ctx, "pins/")
	_ = raw.Set(ctx, keys[0], []byte(`{"name":"a.b","pinned":"2","seen":"2","first_seen":"2026-01-01T00:00:00Z"}`))
	if line, bad := pinsStatus(ctx, cfg.Policy, st); !bad || !strings.Contains(line, "not signed with the store key") {
		t.Errorf("pinsStatus with a planted pin = %q, %v", line, bad)
	}
	if state, _ := pins.Check(ctx, "a.b", "2"); state != policy.PinChanged {
		t.Errorf("the planted pin approved the tool: %q", state)
	}
	if line, _ := pinsStatus(ctx, cfg.Policy, st); !strings.Contains(line, "a.b (its stored pin was refused: not signed with the store key)") {
		t.Errorf("pinsStatus after the pin was held = %q", line)
	}
}

// TestStoreStatusDown: check says what a store that does not answer means
// for pins (held) and rate limits (counted in memory).
func TestStoreStatusDown(t *testing.T) {
	st, err := store.Open("redis://127.0.0.1:1/0", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cfg := &config.Config{Store: config.Store{URL: "redis://127.0.0.1:1/0", Key: "0123456789abcdef"}}
	line, ok := storeStatus(context.Background(), cfg, st)
	if ok || !strings.Contains(line, "not answering") || !strings.Contains(line, "held") || !strings.Contains(line, "memory") {
		t.Errorf("storeStatus with Redis down = %q, %v", line, ok)
	}
}
