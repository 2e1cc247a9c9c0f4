package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toolfold/toolfold/internal/glob"
	"gopkg.in/yaml.v3"
)

// Policy is the "policy:" section: which upstream tool calls toolfold
// makes, asks a person about first, or refuses, and how often.
//
//	policy:
//	  default: allow                  # allow (default) | ask | deny
//	  approval_timeout: 2m            # how long an "ask" waits for the person
//	  pin_tools: true                 # hold a tool whose definition changed (default)
//	  approval_reveal: false          # true: approval forms show whole values, not glimpses
//	  rules:                          # first match wins
//	    - match: memory.delete_*      # glob over server.tool (skills.NAME too)
//	      action: deny
//	    - annotations: {destructiveHint: true}   # as the tool declares them
//	      action: ask
//	    - match: "*.send_*"
//	      rate: 10/min                # N/s, N/min or N/h; action: the default
//	      per: session                # session (default) or all
//
// DefaultPolicy allows every call. Package policy applies it.
type Policy struct {
	// Default is the action for a call no rule matches: ActionAllow,
	// ActionAsk or ActionDeny. Parse sets ActionAllow when the file does
	// not say.
	Default string
	// Rules are tried in file order; the first that matches decides.
	Rules []PolicyRule
	// ApprovalTimeout bounds how long an "ask" waits for the person's
	// answer; the call fails when it passes. Parse sets
	// DefaultApprovalTimeout when the file does not say.
	ApprovalTimeout time.Duration
	// NoPinTools is "pin_tools: false": toolfold does not pin tools'
	// definitions, so a tool whose definition changes is not held.
	NoPinTools bool
	// ApprovalReveal is "approval_reveal: true": an approval form shows
	// the whole value behind each token, not only a glimpse of it.
	ApprovalReveal bool
}

// PolicyRule is one entry of policy.rules. It matches a call when every
// condition it has holds; it has at least one (Match or Annotations).
type PolicyRule struct {
	// Match is a glob over the qualified name server.tool (package
	// internal/glob: * any run of characters, "/" and "." included, ? one
	// character, [a-z] a class); "" matches every name.
	Match string
	// Annotations are hints (destructiveHint, readOnlyHint,
	// idempotentHint, openWorldHint) that must hold as the tool declares
	// them; nil matches any tool.
	Annotations map[string]bool
	// Action is ActionAllow, ActionAsk or ActionDeny; a rule that does not
	// say gets Policy.Default (a rate-only rule).
	Action string
	// Rate, when Limit > 0, allows at most Limit calls per Window to the
	// tools the rule matches, counted per client session, or over every
	// session when PerAll.
	Rate PolicyRate
	// Line is the rule's line in the file, for messages (0 when unknown).
	Line int
}

// PolicyRate is a rule's rate: at most Limit calls per Window.
type PolicyRate struct {
	Limit  int           // 0: no rate
	Window time.Duration // time.Second, time.Minute or time.Hour
	PerAll bool          // "per: all": one count over every session
}

// String writes the rate as the file does: "10/min per session".
func (r PolicyRate) String() string {
	if r.Limit == 0 {
		return ""
	}
	unit := map[time.Duration]string{time.Second: "s", time.Minute: "min", time.Hour: "h"}[r.Window]
	if unit == "" {
		unit = r.Window.String()
	}
	per := "session"
	if r.PerAll {
		per = "all sessions"
	}
	return fmt.Sprintf("%d/%s per %s", r.Limit, unit, per)
}

// Policy actions.
const (
	ActionAllow = "allow"
	ActionAsk   = "ask"
	ActionDeny  = "deny"
)

// DefaultApprovalTimeout is Policy.ApprovalTimeout unless the file sets one.
const DefaultApprovalTimeout = 2 * time.Minute

// DefaultPolicy is the Policy of a config without the section: every call
// is made.
var DefaultPolicy = Policy{Default: ActionAllow, ApprovalTimeout: DefaultApprovalTimeout}

// DefaultAudit is the Audit of a config without the section: off.
var DefaultAudit = Audit{MaxSizeMB: DefaultAuditMaxSizeMB, MaxBackups: DefaultAuditMaxBackups}

// PolicyHints are the tool annotations a rule may match on, as MCP names
// them.
var PolicyHints = []string{"destructiveHint", "readOnlyHint", "idempotentHint", "openWorldHint"}

var (
	policyKeys = []string{"default", "rules", "approval_timeout", "pin_tools", "approval_reveal"}
	ruleKeys   = []string{"match", "annotations", "action", "rate", "per"}
	actions    = []string{ActionAllow, ActionAsk, ActionDeny}
	// actionAliases are words people reach for, by the action they mean.
	actionAliases = map[string]string{"block": ActionDeny, "reject": ActionDeny, "forbid": ActionDeny, "refuse": ActionDeny,
		"confirm": ActionAsk, "prompt": ActionAsk, "approve": ActionAsk, "permit": ActionAllow, "accept": ActionAllow}
	rateUnits = map[string]time.Duration{"s": time.Second, "sec": time.Second, "second": time.Second,
		"m": time.Minute, "min": time.Minute, "minute": time.Minute, "h": time.Hour, "hr": time.Hour, "hour": time.Hour}
)

// policy decodes the "policy:" section into p.
func (d *decoder) policy(n *yaml.Node, p *Policy) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "policy", "a map (default, rules, approval_timeout, pin_tools, approval_reveal)")
	var rules *yaml.Node
	for _, f := range fs {
		pth := join("policy", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "default":
			setIf(&p.Default)(d.action(f.val, pth))
		case "approval_timeout":
			setIf(&p.ApprovalTimeout)(d.duration(f.val, pth))
		case "pin_tools":
			if b, ok := d.boolean(f.val, pth); ok {
				p.NoPinTools = !b
			}
		case "approval_reveal":
			setIf(&p.ApprovalReveal)(d.boolean(f.val, pth))
		case "rules":
			rules = f.val // decoded once default is known: a rule without action takes it
		default:
			d.errorf(f.key, pth, "%s", unknownKey(f.name, policyKeys))
		}
	}
	if rules == nil {
		return
	}
	if rules.Kind != yaml.SequenceNode {
		d.errorf(rules, "policy.rules", "must be a list of rules, like [{match: memory.delete_*, action: deny}]")
		return
	}
	for i, r := range rules.Content {
		if rule, ok := d.policyRule(resolve(r), fmt.Sprintf("policy.rules[%d]", i), p.Default); ok {
			p.Rules = append(p.Rules, rule)
		}
	}
}

// policyRule decodes one rule; ok is false when it had errors.
func (d *decoder) policyRule(n *yaml.Node, pth, def string) (PolicyRule, bool) {
	r := PolicyRule{Line: n.Line}
	fs, ok := d.mapping(n, pth, "a map (match, annotations, action, rate, per)")
	if !ok {
		return r, false
	}
	errs := len(d.errs)
	var perNode *yaml.Node
	for _, f := range fs {
		p := join(pth, f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "match":
			if s, ok := d.str(f.val, p); ok {
				if msg := globProblem(s); msg != "" {
					d.errorf(f.val, p, "%s", msg)
				}
				r.Match = s
			}
		case "annotations":
			r.Annotations = d.hints(f.val, p)
		case "action":
			setIf(&r.Action)(d.action(f.val, p))
		case "rate":
			setIf(&r.Rate)(d.rate(f.val, p))
		case "per":
			perNode = f.val
			if s, ok := d.str(f.val, p); ok {
				switch s {
				case "session":
				case "all":
					r.Rate.PerAll = true
				default:
					d.errorf(f.val, p, "must be session (each client session counts its own calls) or all (one count over every session), not %q", s)
				}
			}
		default:
			d.errorf(f.key, p, "%s", unknownKey(f.name, ruleKeys))
		}
	}
	if len(d.errs) > errs {
		return r, false
	}
	return r, d.checkRule(n, perNode, pth, &r, def)
}

// checkRule reports keys that only make sense together, and fills in the
// default action.
func (d *decoder) checkRule(n, perNode *yaml.Node, pth string, r *PolicyRule, def string) bool {
	switch {
	case r.Match == "" && r.Annotations == nil:
		d.errorf(n, pth, "a rule needs match or annotations; for every tool, set policy.default instead")
	case r.Action == "" && r.Rate.Limit == 0:
		d.errorf(n, pth, "a rule needs an action (allow, ask or deny) or a rate (like 10/min)")
	case r.Action == ActionDeny && r.Rate.Limit > 0:
		d.errorf(n, pth, "a deny rule makes no calls, so its rate never counts; remove rate or change the action")
	case perNode != nil && r.Rate.Limit == 0:
		d.errorf(perNode, join(pth, "per"), "per says how a rate counts; add a rate (like 10/min) or remove per")
	default:
		if r.Action == "" {
			r.Action = def
		}
		return true
	}
	return false
}

// action reads allow, ask or deny.
func (d *decoder) action(n *yaml.Node, p string) (string, bool) {
	s, ok := d.str(n, p)
	if !ok {
		return "", false
	}
	if oneOf(s, actions) {
		return s, true
	}
	hint := ""
	if a := actionAliases[strings.ToLower(s)]; a != "" {
		hint = fmt.Sprintf("; did you mean %q?", a)
	} else if a := suggest(s, actions); a != "" {
		hint = fmt.Sprintf("; did you mean %q?", a)
	}
	d.errorf(n, p, "must be allow, ask or deny, not %q%s", s, hint)
	return "", false
}

// hints reads a rule's annotations: a map of hint names to booleans.
func (d *decoder) hints(n *yaml.Node, p string) map[string]bool {
	fs, ok := d.mapping(n, p, "a map of tool annotations to true or false, like {destructiveHint: true}")
	if !ok {
		return nil
	}
	if len(fs) == 0 {
		d.errorf(n, p, "names no annotation; write one, like {destructiveHint: true}, or remove annotations")
		return nil
	}
	out := map[string]bool{}
	for _, f := range fs {
		hp := join(p, f.name)
		if !oneOf(f.name, PolicyHints) {
			d.errorf(f.key, hp, "%s", unknownKey(f.name, PolicyHints))
			continue
		}
		if b, ok := d.boolean(f.val, hp); ok {
			out[f.name] = b
		}
	}
	return out
}

// rate reads "N/s", "N/min" or "N/h".
func (d *decoder) rate(n *yaml.Node, p string) (PolicyRate, bool) {
	bad := func() (PolicyRate, bool) {
		d.errorf(n, p, "invalid rate %s; write calls per unit: N/s, N/min or N/h, like 10/min", describe(n))
		return PolicyRate{}, false
	}
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	num, unit, ok := strings.Cut(strings.ReplaceAll(n.Value, " ", ""), "/")
	w, known := rateUnits[strings.ToLower(unit)]
	k, err := strconv.Atoi(num)
	if !ok || !known || err != nil {
		return bad()
	}
	if k <= 0 {
		d.errorf(n, p, "must allow at least 1 call, got %q; to refuse the tools, use action: deny", n.Value)
		return PolicyRate{}, false
	}
	return PolicyRate{Limit: k, Window: w}, true
}

// globProblem says why s cannot match a qualified tool name, or "".
func globProblem(s string) string {
	if strings.TrimSpace(s) == "" {
		return "must be a glob over server.tool, like memory.delete_* or *.send_*"
	}
	if err := glob.Check(s); err != nil {
		return err.Error()
	}
	if !strings.Contains(s, ".") && !strings.ContainsAny(s, "*?[") {
		return fmt.Sprintf("%q matches no tool: names are qualified server.tool; write *.%s, or SERVER.%s", s, s, s)
	}
	return ""
}

// checkPolicyServers reports rules whose match names a server that is
// neither an upstream nor skills: they would never match. n is the policy
// section.
func (d *decoder) checkPolicyServers(n *yaml.Node, cfg *Config) {
	rules := lookup(n, "rules")
	if len(cfg.Upstreams) == 0 || rules == nil || rules.Kind != yaml.SequenceNode {
		return
	}
	names := []string{SkillsUpstream}
	for _, u := range cfg.Upstreams {
		names = append(names, u.Name)
	}
	for i, r := range rules.Content {
		m := lookup(resolve(r), "match")
		if m == nil || m.Kind != yaml.ScalarNode {
			continue
		}
		if msg := unknownServer(m.Value, names); msg != "" {
			d.errorf(m, fmt.Sprintf("policy.rules[%d].match", i), "%s", msg)
		}
	}
}

// unknownServer says why glob, over server.tool, names no server of names
// and so never matches, or "" when it may match.
func unknownServer(glob string, names []string) string {
	server, _, ok := strings.Cut(glob, ".")
	if !ok || strings.ContainsAny(server, "*?[\\") || oneOf(server, names) {
		return ""
	}
	msg := fmt.Sprintf("%q names no upstream %q, so the rule never matches", glob, server)
	if s := suggest(server, names); s != "" {
		return msg + fmt.Sprintf("; did you mean %q?", s)
	}
	return msg + "; servers: " + strings.Join(names, ", ")
}

// lookup returns the value of key in mapping n, or nil.
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for j := 0; j+1 < len(n.Content); j += 2 {
		if n.Content[j].Value == key {
			return resolve(n.Content[j+1])
		}
	}
	return nil
}

// Audit is the "audit:" section: a JSON line for every upstream call and
// every run, in File. Without the section (or without file) nothing is
// recorded.
//
//	audit:
//	  file: .toolfold/audit.jsonl   # relative to this file's directory
//	  max_size_mb: 100              # rotate past this size (default 100)
//	  max_backups: 10               # rotated files kept (default 10)
type Audit struct {
	File       string // absolute; "" is off
	MaxSizeMB  int    // default DefaultAuditMaxSizeMB
	MaxBackups int    // default DefaultAuditMaxBackups
	// CaptureCode keeps each run's code (tokenized) in its line;
	// false keeps only a hash of it.
	CaptureCode bool
}

// Defaults of the audit section.
const (
	DefaultAuditMaxSizeMB  = 100
	DefaultAuditMaxBackups = 10
)

var auditKeys = []string{"file", "max_size_mb", "max_backups", "capture_code"}

// audit decodes the "audit:" section into a.
func (d *decoder) audit(n *yaml.Node, a *Audit, dir string, x *expander) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "audit", "a map (file, max_size_mb, max_backups, capture_code)")
	for _, f := range fs {
		p := join("audit", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "file":
			if v, ok := d.path(f.val, p, dir, x, "must be a file, like .toolfold/audit.jsonl; leave audit out to record nothing"); ok {
				a.File = v
			}
		case "max_size_mb":
			setIf(&a.MaxSizeMB)(d.count(f.val, p))
		case "max_backups":
			setIf(&a.MaxBackups)(d.count(f.val, p))
		case "capture_code":
			setIf(&a.CaptureCode)(d.boolean(f.val, p))
		default:
			d.errorf(f.key, p, "%s", unknownKey(f.name, auditKeys))
		}
	}
	if a.File == "" && len(fs) > 0 && !d.has(fs, "file") {
		d.errorf(n, "audit", "needs file, like file: .toolfold/audit.jsonl")
	}
}

func (d *decoder) has(fs []field, name string) bool {
	for _, f := range fs {
		if f.name == name {
			return true
		}
	}
	return false
}
