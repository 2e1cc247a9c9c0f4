package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

// Approvals are one client session's "allow for this session" answers. A
// session owns one and drops it when it ends. The zero value is empty and
// ready; it is safe for concurrent use.
type Approvals struct {
	mu     sync.Mutex
	tools  map[string]bool
	asking map[string]chan struct{} // per tool: one question at a time
}

// turn waits until no other call of the session is asking about tool, so
// that calls made at once (a script's Promise.all) put one question to
// the person, and the others see an "allow for this session" answer.
func (a *Approvals) turn(ctx context.Context, tool string) (release func(), err error) {
	a.mu.Lock()
	if a.asking == nil {
		a.asking = map[string]chan struct{}{}
	}
	ch := a.asking[tool]
	if ch == nil {
		ch = make(chan struct{}, 1)
		a.asking[tool] = ch
	}
	a.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Grant allows tool for the rest of the session.
func (a *Approvals) Grant(tool string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tools == nil {
		a.tools = map[string]bool{}
	}
	a.tools[tool] = true
}

// Granted reports whether tool was allowed for this session. A nil
// *Approvals grants nothing.
func (a *Approvals) Granted(tool string) bool {
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.tools[tool]
}

// List returns the tools allowed for this session, sorted.
func (a *Approvals) List() []string {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for t := range a.tools {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}

// Choices of the approval form.
const (
	ChoiceAllowOnce    = "allow_once"
	ChoiceAllowSession = "allow_session"
	ChoiceDeny         = "deny"
)

// ChoiceField is the approval form's one field.
const ChoiceField = "decision"

// Outcome is how an approval ended, as the audit records it.
type Outcome string

// Outcomes of an approval. The empty Outcome means no one was asked.
const (
	OutcomeAllowOnce    Outcome = "allow_once"    // the person allowed this call
	OutcomeAllowSession Outcome = "allow_session" // ... and the rest of the session's calls to the tool
	OutcomeSession      Outcome = "session"       // allowed by an earlier allow_session; not asked
	OutcomeDenied       Outcome = "deny"          // the person chose deny
	OutcomeDeclined     Outcome = "decline"       // the person declined the form
	OutcomeCancelled    Outcome = "cancel"        // the person dismissed the form
	OutcomeTimeout      Outcome = "timeout"       // no answer within the approval timeout
	OutcomeUnavailable  Outcome = "unavailable"   // the client cannot ask (no elicitation)
	OutcomeTooLarge     Outcome = "too_large"     // the call is too large to show; no one was asked
)

// Allowed reports whether the outcome lets the call through.
func (o Outcome) Allowed() bool {
	return o == OutcomeAllowOnce || o == OutcomeAllowSession || o == OutcomeSession
}

// ApprovalRequest is what the person is asked about.
type ApprovalRequest struct {
	Tool  string // qualified name
	RunID string // the run_script run that makes the call; "" for a direct call
	// Args are the call's arguments as the model sees them (tokenized);
	// the form shows them whole.
	Args    json.RawMessage
	Rule    Rule // the rule that asks
	Changed bool // asked because the tool's definition changed
	// Tokens say what each token in Args stands for; a token Args holds
	// and Tokens does not list is shown as not from this session.
	Tokens []TokenNote
	// Reveal shows each token's whole value (policy.approval_reveal)
	// instead of a glimpse of it.
	Reveal bool
	// Flows, when set, are the values the person is asked to let go to
	// Tool (pii.flows); the form is then about them, not the tool.
	Flows []FlowNote
}

// TokenNote is what the approval form says of one token in a call.
type TokenNote struct {
	Token   string // as the arguments hold it: "[EMAIL_2]"
	Type    string // "EMAIL"
	Origin  string // the qualified tool whose result minted it; "client": typed by the client or script
	Glimpse string // enough of the value to judge it: "an address at example.org"
	Value   string // the whole value; shown only with Reveal
}

// FlowNote is one value the person is asked to let go to the tool.
type FlowNote struct {
	Token string // "[EMAIL_2]"
	From  string // where it came from
	Rule  string // the rule that asks
	Key   string // what "allow for this session" allows: FlowKey
}

// MaxShownArgs bounds the arguments an approval form shows: a call whose
// arguments, indented, are larger is refused rather than shown cut.
const MaxShownArgs = 64 << 10

// ErrTooLarge is why a call too large to show is refused.
var ErrTooLarge = fmt.Errorf("its arguments are larger than an approval form shows (%d KiB); "+
	"split the work into smaller calls, or let a rule in proxy.yaml allow it without asking", MaxShownArgs>>10)

// Params builds the elicitation/create request (form mode) that asks the
// person: a message naming the tool and the run, the whole arguments,
// what each token stands for, and one required field, decision, with the
// choices allow_once, allow_session and deny. It fails with ErrTooLarge
// when the arguments are too large to show whole.
func (r ApprovalRequest) Params() (*mcp.ElicitParams, error) {
	args, err := showArgs(r.Args)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	from := "A tool call"
	if r.RunID != "" {
		from = fmt.Sprintf("A script (run %s)", r.RunID)
	}
	fmt.Fprintf(&b, "%s wants to call %s.\n", from, r.Tool)
	if args != "" {
		fmt.Fprintf(&b, "Arguments, whole:\n%s\n", args)
	}
	r.writeTokens(&b, args)
	session := "allow " + r.Tool + " for the rest of this session"
	switch {
	case len(r.Flows) > 0:
		b.WriteString("These values would leave the server they came from:\n")
		for _, f := range r.Flows {
			fmt.Fprintf(&b, "  %s from %s to %s (%s asks)\n", f.Token, orUnknown(f.From), r.Tool, f.Rule)
		}
		b.WriteString("Let them go?")
		session = "let such values go (same origin server, tool and type) for the rest of this session"
	case r.Changed:
		fmt.Fprintf(&b, "The tool's definition changed since toolfold first saw it (`toolfold tools approve %s` accepts the change).\nAllow it?", r.Tool)
	default:
		fmt.Fprintf(&b, "toolfold asks because of %s.\nAllow it?", r.Rule)
	}
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: b.String(),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				ChoiceField: map[string]any{
					"type":        "string",
					"title":       "Decision",
					"description": "Allow this call once, " + session + ", or deny it.",
					"enum":        []any{ChoiceAllowOnce, ChoiceAllowSession, ChoiceDeny},
					"enumNames":   []any{"Allow once", "Allow for this session", "Deny"},
				},
			},
			"required": []any{ChoiceField},
		},
	}, nil
}

// showArgs is the arguments indented for reading, whole; ErrTooLarge past
// MaxShownArgs. Text that is not JSON is shown as it is.
func showArgs(raw json.RawMessage) (string, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return "", nil
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "  ", "  "); err != nil {
		b.Reset()
		b.Write(raw)
	}
	if b.Len() > MaxShownArgs {
		return "", ErrTooLarge
	}
	return "  " + b.String(), nil
}

// writeTokens says what each token the shown arguments hold stands for.
func (r ApprovalRequest) writeTokens(b *strings.Builder, args string) {
	notes := map[string]TokenNote{}
	for _, n := range r.Tokens {
		notes[n.Token] = n
	}
	toks := tokenShapes(args)
	if len(toks) == 0 {
		return
	}
	b.WriteString("The tokens stand for values toolfold puts back before the call:\n")
	for _, t := range toks {
		n, ok := notes[t]
		switch {
		case !ok:
			fmt.Fprintf(b, "  %s: NOT from this session's results; it reaches %s as written, the text %s\n", t, r.Tool, t)
		case r.Reveal:
			fmt.Fprintf(b, "  %s: %s %q, %s\n", t, strings.ToLower(n.Type), n.Value, origin(n.Origin))
		default:
			fmt.Fprintf(b, "  %s: %s, %s\n", t, n.Glimpse, origin(n.Origin))
		}
	}
}

// origin says where a token's value came from.
func origin(o string) string {
	switch o {
	case "":
		return "from a source toolfold does not know"
	case config.FlowFromClient:
		return "typed by the client or its script"
	}
	return "from " + o
}

func orUnknown(o string) string {
	if o == "" {
		return "an unknown source"
	}
	return o
}

// tokenShapes are the "[TYPE_n]" texts in s, each once, in order.
func tokenShapes(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range tokenRE.FindAllString(s, -1) {
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	return out
}

var tokenRE = regexp.MustCompile(`\[[A-Z][A-Z0-9_]*_[0-9]+\]`)

// ParseApproval reads the client's answer to Params' form. An accepted
// form without a known choice counts as deny: the person did not allow
// the call.
func ParseApproval(res *mcp.ElicitResult) (Outcome, error) {
	if res == nil {
		return OutcomeCancelled, errors.New("no elicitation result")
	}
	switch res.Action {
	case "accept":
		switch c, _ := res.Content[ChoiceField].(string); c {
		case ChoiceAllowOnce:
			return OutcomeAllowOnce, nil
		case ChoiceAllowSession:
			return OutcomeAllowSession, nil
		case ChoiceDeny:
			return OutcomeDenied, nil
		default:
			return OutcomeDenied, fmt.Errorf("the form came back without a known %s (%q): taken as deny", ChoiceField, c)
		}
	case "decline":
		return OutcomeDeclined, nil
	case "cancel":
		return OutcomeCancelled, nil
	}
	return OutcomeCancelled, fmt.Errorf("unknown elicitation action %q: taken as cancel", res.Action)
}

// Asker asks the person through the client: the client session's Elicit
// (mcp.ServerSession.Elicit). The proxy pauses the run's wall clock while
// it waits.
type Asker func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)

// Call is one upstream tool call to authorize.
type Call struct {
	Tool    Tool
	Session string // the client session's id, for rates counted per session
	RunID   string // the run_script run making the call; "" for a direct call
	// Args are the arguments as the model sees them (tokenized), for the
	// approval form.
	Args json.RawMessage
	// Tokens say what the tokens in Args stand for, for the approval form.
	Tokens []TokenNote
	// Reveal shows whole values in the form (policy.approval_reveal).
	Reveal bool
}

// Verdict is Authorize's account of a call, for the audit.
type Verdict struct {
	Decision
	Approval Outcome // "" when no one was asked
}

// Authorize applies the policy to one call: a deny refuses it; a rate
// counts it (and refuses it over the limit); an ask lets it through when
// the session allowed the tool earlier, else asks the person with ask,
// waiting at most the approval timeout. approvals is the calling
// session's (nil: none); ask nil means the client cannot elicit, which
// refuses every ask (fail closed). A session asks about one tool at a
// time: calls made at once wait for the first answer. The error is a
// *Refusal, whose message is what the model should see; the Verdict is
// filled either way.
func (p *Policy) Authorize(ctx context.Context, c Call, approvals *Approvals, ask Asker) (Verdict, error) {
	v := Verdict{Decision: p.Decide(c.Tool)}
	if v.Action == Deny {
		return v, v.refusal(c.Tool.Name, ReasonDenied, nil)
	}
	if err := p.Limit(ctx, c.Tool.Name, v.Decision, c.Session); err != nil {
		return v, err
	}
	if v.Action != Ask {
		return v, nil
	}
	if approvals != nil && ask != nil {
		release, err := approvals.turn(ctx, c.Tool.Name)
		if err != nil {
			v.Approval = OutcomeCancelled
			return v, v.refusal(c.Tool.Name, ReasonCancelled, err)
		}
		defer release()
	}
	return p.askFor(ctx, c, v, approvals, ask)
}

// askFor settles an ask: by the session's earlier answer, else by the
// person's.
func (p *Policy) askFor(ctx context.Context, c Call, v Verdict, approvals *Approvals, ask Asker) (Verdict, error) {
	name := c.Tool.Name
	switch {
	case approvals.Granted(name):
		v.Approval = OutcomeSession
		return v, nil
	case ask == nil:
		v.Approval = OutcomeUnavailable
		return v, v.refusal(name, ReasonNoElicitation, nil)
	}
	var err error
	v.Approval, err = p.ask(ctx, c, v.Decision, ask)
	switch v.Approval {
	case OutcomeAllowSession:
		if approvals != nil {
			approvals.Grant(name)
		}
		return v, nil
	case OutcomeAllowOnce:
		return v, nil
	case OutcomeTimeout:
		r := v.refusal(name, ReasonTimeout, err)
		r.Timeout = p.ApprovalTimeout()
		return v, r
	case OutcomeUnavailable:
		return v, v.refusal(name, ReasonNoElicitation, err)
	case OutcomeCancelled:
		return v, v.refusal(name, ReasonCancelled, err)
	case OutcomeTooLarge:
		return v, v.refusal(name, ReasonTooLarge, err)
	}
	return v, v.refusal(name, ReasonDeclined, err)
}

// refusal is the error for a call to tool that v does not let through.
func (v Verdict) refusal(tool string, r Reason, err error) *Refusal {
	return &Refusal{Tool: tool, Reason: r, Rule: v.Rule, Changed: v.Changed, Err: err}
}

// ask puts the form in front of the person and reads the answer. The
// error is the client's, when it could not ask.
func (p *Policy) ask(ctx context.Context, c Call, d Decision, ask Asker) (Outcome, error) {
	return p.askRequest(ctx, ApprovalRequest{Tool: c.Tool.Name, RunID: c.RunID, Args: c.Args, Rule: d.Rule,
		Changed: d.Changed, Tokens: c.Tokens, Reveal: c.Reveal}, ask)
}

// askRequest asks req, waiting at most the approval timeout. A call too
// large to show is OutcomeTooLarge, with ErrTooLarge, asking no one.
func (p *Policy) askRequest(ctx context.Context, req ApprovalRequest, ask Asker) (Outcome, error) {
	params, err := req.Params()
	if err != nil {
		return OutcomeTooLarge, err
	}
	actx, cancel := context.WithTimeout(ctx, p.ApprovalTimeout())
	defer cancel()
	res, err := ask(actx, params)
	switch {
	case err != nil && ctx.Err() != nil:
		return OutcomeCancelled, ctx.Err()
	case err != nil && actx.Err() != nil:
		return OutcomeTimeout, nil
	case err != nil:
		return OutcomeUnavailable, err
	}
	out, err := ParseApproval(res)
	if err != nil {
		p.logger().Warn("policy: "+err.Error(), "tool", req.Tool)
	}
	return out, nil
}

func (p *Policy) logger() *slog.Logger {
	if p == nil || p.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.log
}
