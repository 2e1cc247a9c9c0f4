package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/shorten"
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
	// the form shows them shortened.
	Args    json.RawMessage
	Rule    Rule // the rule that asks
	Changed bool // asked because the tool's definition changed
}

// Params builds the elicitation/create request (form mode) that asks the
// person: a message naming the tool, the run and the shortened arguments,
// and one required field, decision, with the choices allow_once,
// allow_session and deny.
func (r ApprovalRequest) Params() *mcp.ElicitParams {
	var b strings.Builder
	from := "A tool call"
	if r.RunID != "" {
		from = fmt.Sprintf("A script (run %s)", r.RunID)
	}
	fmt.Fprintf(&b, "%s wants to call %s.\n", from, r.Tool)
	if args := shorten.JSON(r.Args, shorten.Default); args != "" {
		fmt.Fprintf(&b, "Arguments: %s\n", args)
	}
	if r.Changed {
		fmt.Fprintf(&b, "The tool's definition changed since toolfold first saw it (`toolfold tools approve %s` accepts the change).\n", r.Tool)
	} else {
		fmt.Fprintf(&b, "toolfold asks because of %s.\n", r.Rule)
	}
	b.WriteString("Allow it?")
	return &mcp.ElicitParams{
		Mode:    "form",
		Message: b.String(),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				ChoiceField: map[string]any{
					"type":        "string",
					"title":       "Decision",
					"description": "Allow this call once, allow " + r.Tool + " for the rest of this session, or deny it.",
					"enum":        []any{ChoiceAllowOnce, ChoiceAllowSession, ChoiceDeny},
					"enumNames":   []any{"Allow once", "Allow for this session", "Deny"},
				},
			},
			"required": []any{ChoiceField},
		},
	}
}

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
	actx, cancel := context.WithTimeout(ctx, p.ApprovalTimeout())
	defer cancel()
	req := ApprovalRequest{Tool: c.Tool.Name, RunID: c.RunID, Args: c.Args, Rule: d.Rule, Changed: d.Changed}
	res, err := ask(actx, req.Params())
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
		p.logger().Warn("policy: "+err.Error(), "tool", c.Tool.Name)
	}
	return out, nil
}

func (p *Policy) logger() *slog.Logger {
	if p == nil || p.log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return p.log
}
