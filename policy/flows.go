package policy

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/glob"
)

// Flows decide where the value behind a PII token may go (pii.flows):
// restoring a token into a call is letting the value leave the tool whose
// result minted it for the tool called. The first rule that matches
// decides; with none, a value goes back to its own server, a value the
// client typed goes anywhere, and a person is asked before a value goes
// to another server. A nil *Flows applies the defaults. It is safe for
// concurrent use.
type Flows struct {
	rules []flowRule
}

type flowRule struct {
	FlowRule
	from, to string
	types    map[string]bool // nil: every type
	action   Action
}

// FlowRule names what decided a flow: a pii.flows rule or a default.
type FlowRule struct {
	Index int    // 1-based position in pii.flows; 0 for a default
	Text  string // the rule as the file has it, or the default's words
	Line  int    // the rule's line in the config file; 0 when unknown
}

// String names the rule for messages and the audit: "pii.flows rule 2
// (crm.* -> mail.*)", "the flow default (another server: ask)".
func (r FlowRule) String() string {
	if r.Index == 0 {
		return "the flow default (" + r.Text + ")"
	}
	s := fmt.Sprintf("pii.flows rule %d (%s)", r.Index, r.Text)
	if r.Line > 0 {
		s += fmt.Sprintf(" at line %d", r.Line)
	}
	return s
}

// The defaults, as FlowRule.Text shows them.
const (
	flowSameServer  = "same server: allow"
	flowOtherServer = "another server: ask"
	flowUnknown     = "origin unknown: ask"
	flowClient      = "a value the client typed: allow"
	flowLiteral     = "text that only looked like a token: allow"
)

// NewFlows builds the flow rules of cfg (validated config.PII.Flows).
func NewFlows(cfg []config.PIIFlow) *Flows {
	f := &Flows{}
	for i, r := range cfg {
		fr := flowRule{FlowRule: FlowRule{Index: i + 1, Text: r.From + " -> " + r.To, Line: r.Line},
			from: r.From, to: r.To, action: Action(r.Action)}
		if len(r.Types) > 0 {
			fr.types = map[string]bool{}
			for _, t := range r.Types {
				fr.types[t] = true
			}
			fr.Text += " [" + strings.Join(r.Types, ", ") + "]"
		}
		f.rules = append(f.rules, fr)
	}
	return f
}

// Flow is one token's value on its way into a call.
type Flow struct {
	Token string // "[EMAIL_1]"
	Type  string // "EMAIL"
	// Origins are the qualified tools whose results held the value, the
	// first minter first; config.FlowFromClient for a value the client
	// typed; empty or "" when unknown.
	Origins []string
	To      string // the qualified tool called (server.tool)
}

// FlowDecision is what Decide says of one flow.
type FlowDecision struct {
	Action Action
	Rule   FlowRule
	From   string // the origin the decision is about: the one that let it through, or the first
}

// Decide returns what happens to fl: of its origins, the one that lets the
// value go most freely decides (a server that returned the value itself
// may have it back). It asks no one.
func (f *Flows) Decide(fl Flow) FlowDecision {
	if fl.Type == "TOKEN" {
		return FlowDecision{Action: Allow, Rule: FlowRule{Text: flowLiteral}, From: first(fl.Origins)}
	}
	best := FlowDecision{Action: Ask, Rule: FlowRule{Text: flowUnknown}, From: first(fl.Origins)}
	for i, o := range fl.Origins {
		d := f.decideFrom(o, fl.Type, fl.To)
		if i == 0 || rank(d.Action) > rank(best.Action) {
			best = d
		}
	}
	return best
}

// decideFrom decides a value from origin alone.
func (f *Flows) decideFrom(origin, typ, to string) FlowDecision {
	if f != nil {
		for _, r := range f.rules {
			if (r.types == nil || r.types[typ]) && matchFlowGlob(r.from, origin) && matchFlowGlob(r.to, to) {
				return FlowDecision{Action: r.action, Rule: r.FlowRule, From: origin}
			}
		}
	}
	switch {
	case origin == "":
		return FlowDecision{Action: Ask, Rule: FlowRule{Text: flowUnknown}, From: origin}
	case origin == config.FlowFromClient:
		return FlowDecision{Action: Allow, Rule: FlowRule{Text: flowClient}, From: origin}
	case ServerOf(origin) == ServerOf(to):
		return FlowDecision{Action: Allow, Rule: FlowRule{Text: flowSameServer}, From: origin}
	}
	return FlowDecision{Action: Ask, Rule: FlowRule{Text: flowOtherServer}, From: origin}
}

func rank(a Action) int {
	switch a {
	case Allow:
		return 2
	case Ask:
		return 1
	}
	return 0
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// ServerOf is the server part of a qualified name: "crm" of
// "crm.get_contact" (server names hold no '.').
func ServerOf(q string) string {
	s, _, _ := strings.Cut(q, ".")
	return s
}

// matchFlowGlob reports whether the glob pattern matches the qualified name,
// with the policy rules' syntax: '*' spans any characters, '/' and '.'
// included, '?' one character.
func matchFlowGlob(pattern, name string) bool { return glob.Match(pattern, name) }

// FlowKey names a flow for "allow for this session": the server the value
// came from, the tool it goes to, and its type.
func FlowKey(d FlowDecision, fl Flow) string {
	return ServerOf(d.From) + " -> " + fl.To + " [" + fl.Type + "]"
}

// FlowVerdict is the account of one flow, for the audit.
type FlowVerdict struct {
	Flow
	FlowDecision
	Approval Outcome // "" when no one was asked
}

// FlowCall is a call whose arguments hold tokens of the session's vault.
type FlowCall struct {
	Call         // the call, for the approval form (Tool.Name is the destination)
	Flows []Flow // one per token the call would restore
}

// AuthorizeFlows decides each flow of c: a deny refuses the call; asks
// are settled by the session's earlier "allow for this session" answers,
// else by one question to the person about all of them together (ask nil:
// no person can be asked, which refuses). The verdicts are filled either
// way, one per flow; the error is a *FlowRefusal.
func (p *Policy) AuthorizeFlows(ctx context.Context, f *Flows, c FlowCall, approvals *Approvals, ask Asker) ([]FlowVerdict, error) {
	vs := make([]FlowVerdict, len(c.Flows))
	var asks []int
	var refused *FlowRefusal
	for i, fl := range c.Flows {
		vs[i] = FlowVerdict{Flow: fl, FlowDecision: f.Decide(fl)}
		switch {
		case vs[i].Action == Deny && refused == nil:
			refused = &FlowRefusal{Flow: fl, Decision: vs[i].FlowDecision, Reason: ReasonDenied}
		case vs[i].Action == Ask && approvals.Granted(flowGrant(FlowKey(vs[i].FlowDecision, fl))):
			vs[i].Approval = OutcomeSession
		case vs[i].Action == Ask:
			asks = append(asks, i)
		}
	}
	if refused != nil || len(asks) == 0 {
		return vs, nilIfNone(refused)
	}
	if approvals != nil && ask != nil {
		release, err := approvals.turn(ctx, "flows -> "+c.Tool.Name)
		if err != nil {
			return vs, settle(vs, asks, OutcomeCancelled, err)
		}
		defer release()
	}
	return vs, p.askFlows(ctx, c, vs, asks, approvals, ask)
}

// askFlows puts the asked flows to the person, unless an answer given
// while this call waited its turn settles them.
func (p *Policy) askFlows(ctx context.Context, c FlowCall, vs []FlowVerdict, asks []int, approvals *Approvals, ask Asker) error {
	var still []int
	for _, i := range asks {
		if approvals.Granted(flowGrant(FlowKey(vs[i].FlowDecision, vs[i].Flow))) {
			vs[i].Approval = OutcomeSession
			continue
		}
		still = append(still, i)
	}
	if len(still) == 0 {
		return nil
	}
	if ask == nil {
		return settle(vs, still, OutcomeUnavailable, nil)
	}
	req := ApprovalRequest{Tool: c.Tool.Name, RunID: c.RunID, Args: c.Args, Tokens: c.Tokens, Reveal: c.Reveal}
	for _, i := range still {
		req.Flows = append(req.Flows, FlowNote{Token: vs[i].Token, From: vs[i].From, Rule: vs[i].Rule.String(), Key: FlowKey(vs[i].FlowDecision, vs[i].Flow)})
	}
	out, err := p.askRequest(ctx, req, ask)
	if out == OutcomeAllowSession && approvals != nil {
		for _, n := range req.Flows {
			approvals.Grant(flowGrant(n.Key))
		}
	}
	if out.Allowed() {
		for _, i := range still {
			vs[i].Approval = out
		}
		return nil
	}
	r := settle(vs, still, out, err)
	if out == OutcomeTimeout {
		r.Timeout = p.ApprovalTimeout()
	}
	return r
}

// flowGrant is the Approvals key of a flow allowed for the session; no
// tool's qualified name starts with "flow ".
func flowGrant(key string) string { return "flow " + key }

// settle marks the flows at idx with out and returns the refusal of the
// first.
func settle(vs []FlowVerdict, idx []int, out Outcome, err error) *FlowRefusal {
	for _, i := range idx {
		vs[i].Approval = out
	}
	v := vs[idx[0]]
	return &FlowRefusal{Flow: v.Flow, Decision: v.FlowDecision, Reason: outcomeReason(out), Err: err}
}

func outcomeReason(o Outcome) Reason {
	switch o {
	case OutcomeTimeout:
		return ReasonTimeout
	case OutcomeUnavailable:
		return ReasonNoElicitation
	case OutcomeCancelled:
		return ReasonCancelled
	case OutcomeTooLarge:
		return ReasonTooLarge
	}
	return ReasonDeclined
}

func nilIfNone(r *FlowRefusal) error {
	if r == nil {
		return nil
	}
	return r
}

// FlowRefusal is the error of a call whose arguments hold a token whose
// value may not go where the call sends it. Its message names the token
// (never the value), where it came from, and the rule to add to let it go.
type FlowRefusal struct {
	Flow     Flow
	Decision FlowDecision
	Reason   Reason
	Timeout  time.Duration // ReasonTimeout: the approval timeout that passed
	Err      error         // what went wrong asking, if anything
}

func (r *FlowRefusal) Unwrap() error { return r.Err }

func (r *FlowRefusal) Error() string {
	fl, d := r.Flow, r.Decision
	from := d.From
	if from == "" {
		from = "a source toolfold does not know"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s stands for a value from %s; ", fl.To, fl.Token, from)
	switch r.Reason {
	case ReasonDenied:
		fmt.Fprintf(&b, "%s keeps it from %s, so the call was not made", d.Rule, fl.To)
	case ReasonNoElicitation:
		cannot := "this client cannot ask a person (it does not support MCP elicitation)"
		if r.Err != nil {
			cannot = fmt.Sprintf("the client could not ask a person (%v)", r.Err)
		}
		fmt.Fprintf(&b, "%s asks a person before it goes to %s, and %s, so the call was not made", d.Rule, fl.To, cannot)
	case ReasonDeclined:
		return b.String() + "the person did not let it go to " + fl.To + "; the call was not made. Do not retry it unless they ask you to"
	case ReasonCancelled:
		return b.String() + "the person dismissed the approval without answering; the call was not made"
	case ReasonTimeout:
		return b.String() + fmt.Sprintf("no answer to the approval within %s; the call was not made. "+
			"Ask the person to watch for the prompt and retry, or raise policy.approval_timeout", r.Timeout)
	case ReasonTooLarge:
		return b.String() + "the call is too large to show a person in an approval form, so the call was not made; " + r.Err.Error()
	}
	fmt.Fprintf(&b, ". If the person wants such values to go there, %s", r.hint())
	return b.String()
}

// hint is the pii.flows rule to add, as YAML.
func (r *FlowRefusal) hint() string {
	from := r.Decision.From
	if from != "" && from != config.FlowFromClient {
		from = ServerOf(from) + ".*"
	}
	if from == "" {
		from = "*"
	}
	rule := fmt.Sprintf(`{from: %q, to: %q, types: [%s], action: allow}`, from, r.Flow.To, r.Flow.Type)
	if r.Decision.Rule.Index > 0 {
		return fmt.Sprintf("put %s before rule %d in pii.flows of proxy.yaml, or change that rule", rule, r.Decision.Rule.Index)
	}
	return fmt.Sprintf("add %s to pii.flows in proxy.yaml", rule)
}
