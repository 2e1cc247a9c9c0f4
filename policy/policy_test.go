package policy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

// testPolicy parses a policy section as proxy.yaml would have it.
func testPolicy(t *testing.T, section string) *Policy {
	t.Helper()
	src := "upstreams:\n  memory: {command: x}\n  github: {command: y}\n  mail: {command: z}\n" + section
	cfg, err := config.Parse("proxy.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(cfg.Policy, nil)
}

const issuePolicy = `policy:
  default: allow
  rules:
    - match: memory.create_entities
      action: ask
    - match: memory.delete_*
      action: deny
    - annotations: {destructiveHint: true}
      action: ask
    - match: "*.send_*"
      rate: 2/min
    - match: github.*
      annotations: {readOnlyHint: true}
      action: allow
    - match: github.*
      action: deny
`

func ptr[T any](v T) *T { return &v }

func TestDecide(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	tests := []struct {
		name string
		tool Tool
		want Decision
	}{
		{"ask by name", Tool{Name: "memory.create_entities"},
			Decision{Action: Ask, Rule: Rule{Index: 1, Text: "memory.create_entities", Line: 8}}},
		{"deny by glob", Tool{Name: "memory.delete_entities"},
			Decision{Action: Deny, Rule: Rule{Index: 2, Text: "memory.delete_*", Line: 10}}},
		{"declared destructive", Tool{Name: "memory.add_observations", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(true)}},
			Decision{Action: Ask, Rule: Rule{Index: 3, Text: "annotations {destructiveHint: true}", Line: 12}}},
		{"declared not destructive", Tool{Name: "memory.add_observations", Annotations: &mcp.ToolAnnotations{DestructiveHint: ptr(false)}},
			Decision{Action: Allow, Rule: Rule{Text: "default: allow"}}},
		{"undeclared destructive is not matched", Tool{Name: "memory.read_graph", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			Decision{Action: Allow, Rule: Rule{Text: "default: allow"}}},
		{"rate-only rule takes the default", Tool{Name: "mail.send_message"},
			Decision{Action: Allow, Rule: Rule{Index: 4, Text: "*.send_*", Line: 14, Rate: config.PolicyRate{Limit: 2, Window: time.Minute}}}},
		{"name and annotations", Tool{Name: "github.get_issue", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			Decision{Action: Allow, Rule: Rule{Index: 5, Text: "github.* with annotations {readOnlyHint: true}", Line: 16}}},
		{"no annotations declared: readOnlyHint unknown", Tool{Name: "github.get_issue"},
			Decision{Action: Deny, Rule: Rule{Index: 6, Text: "github.*", Line: 19}}},
		{"changed and allowed: asks", Tool{Name: "memory.read_graph", Changed: true},
			Decision{Action: Ask, Rule: Rule{Text: "default: allow"}, Changed: true}},
		{"changed and denied: stays denied", Tool{Name: "memory.delete_relations", Changed: true},
			Decision{Action: Deny, Rule: Rule{Index: 2, Text: "memory.delete_*", Line: 10}}},
		{"skills are tools too", Tool{Name: "skills.weekly_report"},
			Decision{Action: Allow, Rule: Rule{Text: "default: allow"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, p.Decide(tt.tool)); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNilPolicyAllows(t *testing.T) {
	var p *Policy
	if d := p.Decide(Tool{Name: "a.b"}); d.Action != Allow {
		t.Errorf("nil policy: %+v", d)
	}
	v, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "a.b"}}, nil, nil)
	if err != nil || v.Action != Allow {
		t.Errorf("nil policy Authorize: %+v, %v", v, err)
	}
}

func TestDefaultDeny(t *testing.T) {
	p := testPolicy(t, "policy:\n  default: deny\n  rules:\n    - {match: memory.read_*, action: allow}\n")
	_, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "memory.create_entities"}}, nil, nil)
	want := "memory.create_entities: denied by the policy default (deny); the call was not made. " +
		"To allow it, add {match: memory.create_entities, action: allow} to policy.rules in proxy.yaml, or change policy.default"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant %s", err, want)
	}
	if _, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "memory.read_graph"}}, nil, nil); err != nil {
		t.Errorf("allowed tool: %v", err)
	}
}

func TestLabel(t *testing.T) {
	p := testPolicy(t, issuePolicy)
	for name, want := range map[string]string{
		"memory.create_entities": "asks first",
		"memory.delete_entities": "denied",
		"memory.read_graph":      "",
		"mail.send_message":      "rate 2/min per session",
	} {
		if got := p.Label(Tool{Name: name}); got != want {
			t.Errorf("Label(%s) = %q, want %q", name, got, want)
		}
	}
	if got := p.Label(Tool{Name: "memory.read_graph", Changed: true}); got != "changed since pinned: asks first" {
		t.Errorf("Label(changed) = %q", got)
	}
}

func TestRefusalMessages(t *testing.T) {
	rule := Rule{Index: 2, Text: "memory.delete_*", Line: 12}
	tests := []struct {
		r    Refusal
		want string
	}{
		{Refusal{Tool: "memory.delete_entities", Reason: ReasonDenied, Rule: rule},
			"memory.delete_entities: denied by policy rule 2 (memory.delete_*) at line 12; the call was not made. " +
				"To allow it, put {match: memory.delete_entities, action: allow} before rule 2 in policy.rules of proxy.yaml, or change that rule"},
		{Refusal{Tool: "mail.send", Reason: ReasonRateLimited, RetryAfter: 2500 * time.Millisecond,
			Rule: Rule{Index: 4, Text: "*.send_*", Rate: config.PolicyRate{Limit: 10, Window: time.Minute}}},
			"mail.send: policy rule 4 (*.send_*) allows 10/min per session; the call was not made; retry in 3s"},
		{Refusal{Tool: "memory.create_entities", Reason: ReasonNoElicitation, Rule: Rule{Index: 1, Text: "memory.create_*"}},
			"memory.create_entities: policy rule 1 (memory.create_*) asks a person first; this client cannot ask a person " +
				"(it does not support MCP elicitation), so the call was not made. To allow it without asking, " +
				"put {match: memory.create_entities, action: allow} before rule 1 in policy.rules of proxy.yaml, or change that rule, " +
				"or use a client that supports elicitation"},
		{Refusal{Tool: "memory.x", Reason: ReasonDeclined, Rule: Rule{Index: 1, Text: "memory.*"}},
			"memory.x: the person declined this call (policy rule 1 (memory.*) asks a person first); it was not made. Do not retry it unless they ask you to"},
		{Refusal{Tool: "memory.x", Reason: ReasonCancelled, Rule: Rule{Index: 1, Text: "memory.*"}},
			"memory.x: the person dismissed the approval without answering (policy rule 1 (memory.*) asks a person first); the call was not made"},
		{Refusal{Tool: "memory.x", Reason: ReasonTimeout, Timeout: time.Minute, Rule: Rule{Index: 1, Text: "memory.*"}},
			"memory.x: no answer to the approval within 1m0s (policy rule 1 (memory.*) asks a person first); the call was not made. " +
				"Ask the person to watch for the prompt and retry, or raise policy.approval_timeout"},
		{Refusal{Tool: "memory.x", Reason: ReasonNoElicitation, Changed: true, Rule: Rule{Text: "default: allow"}},
			"memory.x: its definition changed since toolfold pinned it, so a person must approve each call until the change is approved " +
				"with `toolfold tools approve memory.x`; this client cannot ask a person (it does not support MCP elicitation), so the call was not made. " +
				"To allow it without asking, approve the new definition with `toolfold tools approve memory.x`, or use a client that supports elicitation"},
	}
	for _, tt := range tests {
		if got := tt.r.Error(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.r.Reason, got, tt.want)
		}
	}
	inner := errors.New("boom")
	if r := (&Refusal{Reason: ReasonNoElicitation, Err: inner}); !errors.Is(r, inner) || !strings.Contains(r.Error(), "could not ask a person (boom)") {
		t.Errorf("Refusal does not carry its cause: %v", r)
	}
}

// TestDecideNamesWithSlashes: a rule's * spans every character of a
// tool's name, "/" included, so a server-wide deny refuses every tool
// of the server, whatever the upstream calls it (issue 28 item 1).
func TestDecideNamesWithSlashes(t *testing.T) {
	p := testPolicy(t, `policy:
  default: allow
  rules:
    - {match: "mail.send_*", action: ask}
    - {match: memory.*, action: deny}
    - {match: "*.admin?wipe", action: deny}
    - {match: "*/*", action: ask}
`)
	long := "memory." + strings.Repeat("ab/", 100) // over 300 characters
	tests := []struct {
		name string
		want Action
	}{
		{"memory.admin/wipe", Deny},
		{"memory.a/b/c", Deny},
		{"memory./", Deny},
		{"memory.rm -rf /", Deny},
		{"memory.a.b", Deny},
		{"memory.送信/全部", Deny},
		{long, Deny},
		{"mail.send_now/all", Ask},
		{"github.admin/wipe", Deny},
		{"github.admin wipe", Deny},
		{"github.issues/list", Ask},
		{"github.issues.list", Allow},
	}
	for _, tc := range tests {
		if d := p.Decide(Tool{Name: tc.name}); d.Action != tc.want {
			t.Errorf("Decide(%.40q) = %s by %q, want %s", tc.name, d.Action, d.Rule.Text, tc.want)
		}
	}
}

// TestDecideServerWideDeny: match: "*" is every tool, a "/" in its name
// or not.
func TestDecideServerWideDeny(t *testing.T) {
	p := testPolicy(t, "policy:\n  rules:\n    - {match: \"*\", action: deny}\n")
	for _, name := range []string{"a.b", "evil.admin/wipe", "x./", "skills.daily_report"} {
		if d := p.Decide(Tool{Name: name}); d.Action != Deny {
			t.Errorf("Decide(%q) = %s, want deny", name, d.Action)
		}
	}
}
