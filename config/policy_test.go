package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestPolicySection(t *testing.T) {
	base := "upstreams:\n  memory: {command: x}\n  github: {command: y}\n"
	tests := []struct {
		name, yaml string
		want       Policy
	}{
		{"absent", base, DefaultPolicy},
		{"issue example", base + `policy:
  default: allow
  rules:
    - match: memory.delete_*
      action: deny
    - match: github.create_*
      action: ask
    - annotations: {destructiveHint: true}
      action: ask
    - match: "*.send_*"
      rate: 10/min
    - match: skills.*
      rate: 2/s
      per: all
      action: ask
`, Policy{Default: ActionAllow, ApprovalTimeout: DefaultApprovalTimeout, Rules: []PolicyRule{
			{Match: "memory.delete_*", Action: ActionDeny, Line: 7},
			{Match: "github.create_*", Action: ActionAsk, Line: 9},
			{Annotations: map[string]bool{"destructiveHint": true}, Action: ActionAsk, Line: 11},
			{Match: "*.send_*", Action: ActionAllow, Rate: PolicyRate{Limit: 10, Window: time.Minute}, Line: 13},
			{Match: "skills.*", Action: ActionAsk, Rate: PolicyRate{Limit: 2, Window: time.Second, PerAll: true}, Line: 15},
		}}},
		{"rate-only rule takes the default, written after the rules", base + `policy:
  rules: [{match: "*.send_*", rate: 5/h}]
  default: ask
  approval_timeout: 30s
`, Policy{Default: ActionAsk, ApprovalTimeout: 30 * time.Second, Rules: []PolicyRule{
			{Match: "*.send_*", Action: ActionAsk, Rate: PolicyRate{Limit: 5, Window: time.Hour}, Line: 5},
		}}},
		{"no pins", base + "policy:\n  pin_tools: false\n", Policy{Default: ActionAllow, ApprovalTimeout: DefaultApprovalTimeout, NoPinTools: true}},
		{"reveal", base + "policy:\n  approval_reveal: true\n", Policy{Default: ActionAllow, ApprovalTimeout: DefaultApprovalTimeout, ApprovalReveal: true}},
		{"both conditions", base + "policy:\n  rules:\n    - {match: memory.*, annotations: {readOnlyHint: false, openWorldHint: false}, action: deny}\n",
			Policy{Default: ActionAllow, ApprovalTimeout: DefaultApprovalTimeout, Rules: []PolicyRule{
				{Match: "memory.*", Annotations: map[string]bool{"readOnlyHint": false, "openWorldHint": false}, Action: ActionDeny, Line: 6},
			}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, "proxy.yaml", tt.yaml, nil)
			if diff := cmp.Diff(tt.want, cfg.Policy); diff != "" {
				t.Errorf("Policy (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicyErrors(t *testing.T) {
	base := "upstreams:\n  memory: {command: x}\n"
	tests := []struct{ name, yaml, want string }{
		{"bad action", "policy:\n  rules:\n    - match: memory.x\n      action: deny\n    - match: memory.y\n      action: alow\n",
			`proxy.yaml:8:15: policy.rules[1].action: must be allow, ask or deny, not "alow"; did you mean "allow"?`},
		{"action alias", "policy:\n  default: block\n",
			`proxy.yaml:4:12: policy.default: must be allow, ask or deny, not "block"; did you mean "deny"?`},
		{"unknown rule key", "policy:\n  rules:\n    - {mach: memory.x, action: deny}\n",
			`proxy.yaml:5:8: policy.rules[0].mach: unknown key "mach"; did you mean "match"?`},
		{"alias of a rule key", "policy:\n  rules:\n    - {match: memory.x, effect: deny}\n",
			`policy.rules[0].effect: unknown key "effect"; did you mean "action"?`},
		{"unknown policy key", "policy:\n  rule: []\n",
			`proxy.yaml:4:3: policy.rule: unknown key "rule"; did you mean "rules"?`},
		{"rules not a list", "policy:\n  rules: {match: x}\n", `policy.rules: must be a list of rules`},
		{"no condition", "policy:\n  rules:\n    - action: deny\n",
			`proxy.yaml:5:7: policy.rules[0]: a rule needs match or annotations; for every tool, set policy.default instead`},
		{"no action or rate", "policy:\n  rules:\n    - match: memory.x\n",
			`policy.rules[0]: a rule needs an action (allow, ask or deny) or a rate`},
		{"deny with rate", "policy:\n  rules:\n    - {match: memory.x, action: deny, rate: 1/s}\n", `its rate never counts`},
		{"per without rate", "policy:\n  rules:\n    - {match: memory.x, action: ask, per: all}\n",
			`policy.rules[0].per: per says how a rate counts`},
		{"bad per", "policy:\n  rules:\n    - {match: memory.x, rate: 1/s, per: user}\n",
			`policy.rules[0].per: must be session (each client session counts its own calls) or all`},
		{"bad rate", "policy:\n  rules:\n    - {match: memory.x, rate: 10 per minute}\n",
			`proxy.yaml:5:31: policy.rules[0].rate: invalid rate "10 per minute"; write calls per unit: N/s, N/min or N/h, like 10/min`},
		{"zero rate", "policy:\n  rules:\n    - {match: memory.x, rate: 0/min}\n", `must allow at least 1 call, got "0/min"; to refuse the tools, use action: deny`},
		{"bad glob", "policy:\n  rules:\n    - {match: 'memory.[x', action: deny}\n", `invalid glob "memory.[x": has a [ without its ] (write \[ for a bracket)`},
		{"empty range", "policy:\n  rules:\n    - {match: 'memory.[z-a]*', action: deny}\n",
			`proxy.yaml:5:15: policy.rules[0].match: invalid glob "memory.[z-a]*": has the empty range z-a (write the lower end first)`},
		{"lone backslash", "policy:\n  rules:\n    - {match: 'memory.x\\', action: deny}\n", `ends with a lone \ (write \\ for a backslash)`},
		{"unqualified", "policy:\n  rules:\n    - {match: delete_entities, action: deny}\n",
			`"delete_entities" matches no tool: names are qualified server.tool; write *.delete_entities`},
		{"unknown server", "policy:\n  rules:\n    - {match: memroy.delete_*, action: deny}\n",
			`proxy.yaml:5:15: policy.rules[0].match: "memroy.delete_*" names no upstream "memroy", so the rule never matches; did you mean "memory"?`},
		{"unknown hint", "policy:\n  rules:\n    - {annotations: {destructive_hint: true}, action: ask}\n",
			`policy.rules[0].annotations.destructive_hint: unknown key "destructive_hint"; did you mean "destructiveHint"?`},
		{"hint not bool", "policy:\n  rules:\n    - {annotations: {readOnlyHint: yes please}, action: allow}\n",
			`policy.rules[0].annotations.readOnlyHint: must be true or false`},
		{"empty hints", "policy:\n  rules:\n    - {annotations: {}, action: allow}\n", `names no annotation`},
		{"bad pin_tools", "policy:\n  pin_tools: sometimes\n", `proxy.yaml:4:14: policy.pin_tools: must be true or false`},
		{"bad timeout", "policy:\n  approval_timeout: forever\n", `policy.approval_timeout: invalid duration "forever"`},
		{"audit typo", "audit:\n  file: a.jsonl\n  max_size: 5\n", `proxy.yaml:5:3: audit.max_size: unknown key "max_size"; did you mean "max_size_mb"?`},
		{"audit without file", "audit:\n  max_backups: 3\n", `proxy.yaml:4:3: audit: needs file`},
		{"audit bad size", "audit:\n  file: a.jsonl\n  max_size_mb: 10MiB\n", `audit.max_size_mb: must be a positive whole number, got "10MiB"`},
		{"top-level typo", "polciy:\n  default: ask\n", `unknown key "polciy"; did you mean "policy"?`},
		{"unquoted glob", "policy:\n  rules:\n    - match: *.send_*\n      action: deny\n",
			`proxy.yaml:5: invalid YAML: did not find expected alphabetic or numeric character (a value that starts with "*" reads as a YAML alias: quote it, like match: "*.send_*")`},
		{"unquoted glob in flow", "policy:\n  rules: [{match: *.x, action: deny}]\n", `quote it, like match: "*.send_*"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("proxy.yaml", []byte(base+tt.yaml), env(nil))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestPolicyServersInSkillsAndGlobs(t *testing.T) {
	// skills.* and a globbed server name are never "unknown servers".
	src := "upstreams:\n  memory: {command: x}\npolicy:\n  rules:\n    - {match: skills.weekly, action: ask}\n    - {match: 'mem*.delete', action: deny}\n"
	if cfg := mustParse(t, "proxy.yaml", src, nil); len(cfg.Policy.Rules) != 2 {
		t.Errorf("rules = %+v", cfg.Policy.Rules)
	}
}

func TestAuditSection(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "proxy.yaml")
	base := "upstreams:\n  a: {command: x}\n"
	tests := []struct {
		name, yaml string
		want       Audit
	}{
		{"off", base, DefaultAudit},
		{"relative", base + "audit:\n  file: .toolfold/audit.jsonl\n", Audit{File: filepath.Join(dir, ".toolfold", "audit.jsonl"), MaxSizeMB: 100, MaxBackups: 10}},
		{"env and sizes", base + "audit: {file: '${LOGS}/a.jsonl', max_size_mb: 5, max_backups: 2}\n", Audit{File: "/var/log/a.jsonl", MaxSizeMB: 5, MaxBackups: 2}},
		{"capture code", base + "audit: {file: /var/log/a.jsonl, capture_code: true}\n", Audit{File: "/var/log/a.jsonl", MaxSizeMB: 100, MaxBackups: 10, CaptureCode: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, file, tt.yaml, map[string]string{"LOGS": "/var/log"})
			if diff := cmp.Diff(tt.want, cfg.Audit); diff != "" {
				t.Errorf("Audit (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPolicyRateString(t *testing.T) {
	for r, want := range map[PolicyRate]string{
		{}:                               "",
		{Limit: 10, Window: time.Minute}: "10/min per session",
		{Limit: 1, Window: time.Hour, PerAll: true}: "1/h per all sessions",
	} {
		if got := r.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", r, got, want)
		}
	}
}

// TestSamplePolicyRules parses proxy.yaml with the commented-out example
// rules of its policy section switched on, so the examples stay valid.
func TestSamplePolicyRules(t *testing.T) {
	data, err := os.ReadFile("../proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	on := 0
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "    # - ") || strings.HasPrefix(line, "    #   ") {
			line = "    " + line[6:]
			on++
		}
		b.WriteString(line + "\n")
	}
	if on == 0 {
		t.Fatal("proxy.yaml has no commented-out example rules under policy.rules")
	}
	cfg := mustParse(t, "proxy.yaml", b.String(), nil)
	var got []string
	for _, r := range cfg.Policy.Rules {
		got = append(got, r.Match+" "+r.Action+" "+r.Rate.String())
	}
	want := []string{" ask ", "memory.delete_* deny ", "*.send_* allow 10/min per session"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
}
