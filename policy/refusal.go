package policy

import (
	"fmt"
	"strings"
	"time"
)

// Reason says why a call was not made.
type Reason string

// Reasons of a Refusal.
const (
	ReasonDenied        Reason = "denied"         // a deny rule or default
	ReasonDeclined      Reason = "declined"       // the person chose deny, or declined the form
	ReasonCancelled     Reason = "cancelled"      // the person dismissed the form
	ReasonTimeout       Reason = "timeout"        // no answer within policy.approval_timeout
	ReasonNoElicitation Reason = "no_elicitation" // the client cannot ask (fail closed)
	ReasonRateLimited   Reason = "rate_limited"   // over the rule's rate
	ReasonTooLarge      Reason = "too_large"      // too large to show a person
)

// Refusal is the error of a call the policy did not let through. Its
// message is for the model and the person: it names the rule and says
// what to do next. Inside a script it is a catchable tool error.
type Refusal struct {
	Tool    string // qualified name
	Reason  Reason
	Rule    Rule // the rule that denied, asked or limited
	Changed bool // asked because the definition changed since it was pinned
	// RetryAfter is when a rate-limited call may be tried again.
	RetryAfter time.Duration
	// Timeout is the approval timeout that passed (ReasonTimeout).
	Timeout time.Duration
	// Err is what went wrong asking (the client's error), if anything.
	Err error
}

func (r *Refusal) Unwrap() error { return r.Err }

func (r *Refusal) Error() string {
	var b strings.Builder
	b.WriteString(r.Tool + ": ")
	switch r.Reason {
	case ReasonDenied:
		fmt.Fprintf(&b, "denied by %s%s; the call was not made. To allow it, %s",
			r.Rule, r.line(), r.allowHint())
	case ReasonRateLimited:
		fmt.Fprintf(&b, "%s allows %s; the call was not made; retry in %s",
			r.Rule, r.Rule.Rate, roundUp(r.RetryAfter))
	case ReasonNoElicitation:
		cannot := "this client cannot ask a person (it does not support MCP elicitation)"
		if r.Err != nil {
			cannot = fmt.Sprintf("the client could not ask a person (%v)", r.Err)
		}
		fmt.Fprintf(&b, "%s; %s, so the call was not made. "+
			"To allow it without asking, %s, or use a client that supports elicitation", r.asks(), cannot, r.allowHint())
	case ReasonDeclined:
		fmt.Fprintf(&b, "the person declined this call (%s); it was not made. Do not retry it unless they ask you to", r.asks())
	case ReasonCancelled:
		fmt.Fprintf(&b, "the person dismissed the approval without answering (%s); the call was not made", r.asks())
	case ReasonTooLarge:
		fmt.Fprintf(&b, "%s, but the call is too large to show a person whole, so the call was not made: %v", r.asks(), r.Err)
	case ReasonTimeout:
		fmt.Fprintf(&b, "no answer to the approval within %s (%s); the call was not made. "+
			"Ask the person to watch for the prompt and retry, or raise policy.approval_timeout", r.Timeout, r.asks())
	default:
		fmt.Fprintf(&b, "refused by %s", r.Rule)
	}
	return b.String()
}

// asks says why a person is asked: "policy rule 1 (github.create_*) asks a
// person first".
func (r *Refusal) asks() string {
	if r.Changed {
		return "its definition changed since toolfold pinned it, so a person must approve each call " +
			"until the change is approved with `toolfold tools approve " + r.Tool + "`"
	}
	return r.Rule.String() + r.line() + " asks a person first"
}

// allowHint says how to allow the tool in proxy.yaml.
func (r *Refusal) allowHint() string {
	entry := fmt.Sprintf("{match: %s, action: allow}", r.Tool)
	if r.Changed {
		return "approve the new definition with `toolfold tools approve " + r.Tool + "`"
	}
	if r.Rule.Index == 0 {
		return fmt.Sprintf("add %s to policy.rules in proxy.yaml, or change policy.default", entry)
	}
	return fmt.Sprintf("put %s before rule %d in policy.rules of proxy.yaml, or change that rule", entry, r.Rule.Index)
}

func (r *Refusal) line() string {
	if r.Rule.Line == 0 {
		return ""
	}
	return fmt.Sprintf(" at line %d", r.Rule.Line)
}

// roundUp shows a wait in whole seconds, never "0s".
func roundUp(d time.Duration) time.Duration {
	s := (d + time.Second - 1) / time.Second
	return max(s, 1) * time.Second
}
