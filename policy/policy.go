package policy

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/glob"
)

// Action is what the policy does with a call.
type Action string

// Actions, as proxy.yaml writes them.
const (
	Allow Action = config.ActionAllow // make the call
	Ask   Action = config.ActionAsk   // ask the person first (MCP elicitation)
	Deny  Action = config.ActionDeny  // refuse it
)

// Tool is what a decision looks at: one upstream (or skill) tool.
type Tool struct {
	// Name is the qualified name, server.tool (skills.NAME for a skill).
	Name string
	// Annotations are the hints as the tool declares them; nil when it
	// declares none.
	Annotations *mcp.ToolAnnotations
	// Changed is true when the tool's definition changed since it was
	// pinned and the change is not approved (Pins.Check said PinChanged).
	// A changed tool that the rules allow is asked about instead.
	Changed bool
}

// Rule names what made a decision: a rule of policy.rules, or the default.
type Rule struct {
	// Index is the rule's 1-based position in policy.rules; 0 for the
	// default.
	Index int
	// Text shows the rule as the file has it: its match glob, else its
	// annotations ("annotations {destructiveHint: true}"); "default: ask"
	// for the default.
	Text string
	// Line is the rule's line in the config file; 0 when unknown.
	Line int
	// Rate is the rule's rate; Limit 0 when it has none.
	Rate config.PolicyRate
}

// String names the rule for messages: "policy rule 2 (memory.delete_*)",
// or "the policy default (deny)".
func (r Rule) String() string {
	if r.Index == 0 {
		return "the policy " + strings.Replace(r.Text, "default: ", "default (", 1) + ")"
	}
	return fmt.Sprintf("policy rule %d (%s)", r.Index, r.Text)
}

// Decision is the policy's answer for one tool.
type Decision struct {
	Action Action
	Rule   Rule // the rule that matched, or the default (Index 0)
	// Changed is true when the action is Ask only because the tool's
	// definition changed since it was pinned.
	Changed bool
}

// Options changes how a Policy works. The zero value (or nil) counts
// rates in memory and logs nothing.
type Options struct {
	// Counter counts calls for rules with a rate; nil means a new
	// MemCounter. Pass the shared store.Store when replicas share Redis,
	// so that "per: all" counts every replica's calls.
	Counter Counter
	// Logger receives a warning when the counter fails (the call is then
	// counted in this process's memory instead); nil discards.
	Logger *slog.Logger
}

// Policy decides, for each upstream tool call, whether toolfold makes it,
// asks the person first, or refuses it. A nil *Policy allows every call.
// It is safe for concurrent use.
type Policy struct {
	def     Action
	rules   []rule
	timeout time.Duration
	counter Counter
	local   *MemCounter // counts when counter fails (Redis away): never unlimited
	log     *slog.Logger
	clock   func() time.Time // nil: time.Now; tests set it
}

type rule struct {
	Rule
	match  *glob.Pattern // nil: any name
	hints  map[string]bool
	action Action
}

// New builds the Policy that cfg (a validated config.Policy) describes.
func New(cfg config.Policy, opts *Options) *Policy {
	if opts == nil {
		opts = &Options{}
	}
	p := &Policy{def: Action(cfg.Default), timeout: cfg.ApprovalTimeout, counter: opts.Counter, local: NewMemCounter(), log: opts.Logger}
	if p.def == "" {
		p.def = Allow
	}
	if p.timeout <= 0 {
		p.timeout = config.DefaultApprovalTimeout
	}
	if p.counter == nil {
		p.counter = NewMemCounter()
	}
	if p.log == nil {
		p.log = slog.New(slog.DiscardHandler)
	}
	for i, r := range cfg.Rules {
		p.rules = append(p.rules, rule{
			Rule:   Rule{Index: i + 1, Text: ruleText(r), Line: r.Line, Rate: r.Rate},
			match:  p.compile(r.Match),
			hints:  r.Annotations,
			action: Action(r.Action),
		})
	}
	return p
}

// compile compiles a rule's match glob; nil for "". Config validates
// globs, so a bad one here came from a caller that skipped it: the rule
// then matches nothing, and the log says so.
func (p *Policy) compile(match string) *glob.Pattern {
	if match == "" {
		return nil
	}
	g, err := glob.Compile(match)
	if err != nil {
		p.log.Error("policy: a rule matches no tool", "err", err)
		return &glob.Pattern{} // matches only "", which names no tool
	}
	return &g
}

// ruleText shows a rule as the file has it.
func ruleText(r config.PolicyRule) string {
	var parts []string
	if r.Match != "" {
		parts = append(parts, r.Match)
	}
	if len(r.Annotations) > 0 {
		var hs []string
		for _, h := range config.PolicyHints {
			if v, ok := r.Annotations[h]; ok {
				hs = append(hs, fmt.Sprintf("%s: %t", h, v))
			}
		}
		parts = append(parts, "annotations {"+strings.Join(hs, ", ")+"}")
	}
	return strings.Join(parts, " with ")
}

// Decide returns what the policy does with a call to t: the first rule
// that matches decides, else the default. It does not count rates (see
// Limit) or ask anyone (see Authorize).
func (p *Policy) Decide(t Tool) Decision {
	if p == nil {
		return Decision{Action: Allow, Rule: Rule{Text: "default: allow"}}
	}
	d := Decision{Action: p.def, Rule: Rule{Text: "default: " + string(p.def)}}
	for _, r := range p.rules {
		if r.matches(t) {
			d = Decision{Action: r.action, Rule: r.Rule}
			break
		}
	}
	if t.Changed && d.Action == Allow {
		d.Action, d.Changed = Ask, true
	}
	return d
}

func (r rule) matches(t Tool) bool {
	if r.match != nil && !r.match.Match(t.Name) {
		return false
	}
	for h, want := range r.hints {
		if got, declared := hint(t.Annotations, h); !declared || got != want {
			return false
		}
	}
	return true
}

// hint returns the value of the annotation h as the tool declares it.
// destructiveHint and openWorldHint are declared or not; readOnlyHint and
// idempotentHint read as false when a tool declares annotations without
// them (the MCP default), and as undeclared when it declares none.
func hint(a *mcp.ToolAnnotations, h string) (value, declared bool) {
	if a == nil {
		return false, false
	}
	switch h {
	case "destructiveHint":
		if a.DestructiveHint == nil {
			return false, false
		}
		return *a.DestructiveHint, true
	case "openWorldHint":
		if a.OpenWorldHint == nil {
			return false, false
		}
		return *a.OpenWorldHint, true
	case "readOnlyHint":
		return a.ReadOnlyHint, true
	case "idempotentHint":
		return a.IdempotentHint, true
	}
	return false, false
}

// Label is how search_tools shows a tool's policy to the model: "" for a
// plain allow, else "denied", "asks first", "changed: asks first",
// "rate 10/min per session" (joined with "; ").
func (p *Policy) Label(t Tool) string {
	d := p.Decide(t)
	var parts []string
	switch {
	case d.Action == Deny:
		return "denied"
	case d.Changed:
		parts = append(parts, "changed since pinned: asks first")
	case d.Action == Ask:
		parts = append(parts, "asks first")
	}
	if d.Rule.Rate.Limit > 0 {
		parts = append(parts, "rate "+d.Rule.Rate.String())
	}
	return strings.Join(parts, "; ")
}

// ApprovalTimeout bounds how long Authorize waits for the person.
func (p *Policy) ApprovalTimeout() time.Duration {
	if p == nil {
		return config.DefaultApprovalTimeout
	}
	return p.timeout
}
