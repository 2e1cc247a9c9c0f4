package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/rewrite"
)

// Observer is told what the proxy does as it does it; the local dashboard
// (package dashboard) is one (Options.Observer). Everything it is given
// is what the model may see: code, arguments, output and errors tokenized
// by the session's vault, sessions named by sessiontag.Of, never an id or a
// raw value. The proxy calls it on its own goroutines: every method but
// Ask must return at once.
type Observer interface {
	// RunStarted is called when a run_script run (or a skill run) starts.
	RunStarted(RunStart)
	// Recorded is called with each record the audit gets (a call with its
	// policy decision and duration, a run, a flow decision), whether the
	// audit file is on or not.
	Recorded(audit.Record)
	// RunEnded is called when a run ends, with what went back to the model.
	RunEnded(RunEnd)
	// Ask puts a parked call in front of the person on the observer's own
	// page and waits for their answer (an elicitation result in the
	// approval form's shape, policy.ParseApproval), or for ctx to end:
	// the approval timeout, or the call given up. It is asked beside the
	// client, when the client can ask: the first answer wins.
	Ask(ctx context.Context, a Approval) (*mcp.ElicitResult, error)
}

// RunStart is a run that has just started.
type RunStart struct {
	Time     time.Time
	Session  string // sessiontag.Of, "stdio", or "" outside a client session
	RunID    string
	Language string
	Code     string // tokenized
}

// RunEnd is a run that has ended.
type RunEnd struct {
	Session  string
	RunID    string
	Duration time.Duration
	Calls    int
	// ResultTokens estimates the tokens of the results the run's calls
	// got: kept out of the model's context.
	ResultTokens int64
	// Output is what went back to the model, tokenized.
	Output  string
	IsError bool
}

// Approval is a call waiting for a person's answer.
type Approval struct {
	Session string // sessiontag.Of, "stdio", or ""
	RunID   string // "" for a call outside a run
	Tool    string // the tool called (server.tool)
	Args    json.RawMessage
	// Why says why a person is asked: the rule, a changed definition, or
	// the values that would leave their server.
	Why string
	// Tokens say what each token in Args is: "[EMAIL_1]: email, from
	// crm.get_contact"; never its value.
	Tokens []string
	// ClientAsked reports whether the client was asked too.
	ClientAsked bool
}

// observed wraps ask, the client's asker (nil: the client cannot ask), so
// that the observer's page is asked too; without an observer it is ask.
// describe describes the call, when a person is asked. A run whose client
// cannot ask is told on the client's log and in its answer's footer that a
// person is asked on the dashboard.
func (g *guard) observed(ctx context.Context, ask policy.Asker, describe func() Approval) policy.Asker {
	if g.obs == nil {
		return ask
	}
	s := sessionOf(ctx)
	page := func(ctx context.Context, _ *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		a := describe()
		a.Session, a.RunID, a.ClientAsked = auditSession(s), runOf(ctx).id, ask != nil
		if f := runFrameOf(ctx); f != nil {
			f.budget.pageAsks.Add(1)
		}
		if s != nil && ask == nil {
			_ = s.ss.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: "toolfold",
				Data: fmt.Sprintf("%s: a person is being asked on the toolfold dashboard; the run waits for the answer", a.Tool)})
		}
		return g.obs.Ask(ctx, a)
	}
	if ask == nil {
		return page
	}
	return either(ask, page)
}

// either asks with a and b at once; the first answer wins and the other
// question is withdrawn. It fails only when both fail.
func either(a, b policy.Asker) policy.Asker {
	return func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		type answer struct {
			res *mcp.ElicitResult
			err error
		}
		ch := make(chan answer, 2)
		for _, ask := range []policy.Asker{a, b} {
			go func() {
				res, err := ask(ctx, p)
				ch <- answer{res, err}
			}()
		}
		first := <-ch
		if first.err == nil {
			return first.res, nil
		}
		second := <-ch
		if second.err == nil {
			return second.res, nil
		}
		return nil, first.err
	}
}

// approvalOf describes a call the policy may ask about, for the page.
func approvalOf(tool string, args json.RawMessage, why string, notes []policy.TokenNote) Approval {
	a := Approval{Tool: tool, Args: args, Why: why}
	for _, n := range notes {
		from := "from " + n.Origin
		switch n.Origin {
		case "":
			from = "from a source toolfold does not know"
		case rewrite.OriginClient:
			from = "typed by the client or its script"
		}
		a.Tokens = append(a.Tokens, fmt.Sprintf("%s: %s, %s", n.Token, n.Type, from))
	}
	return a
}

// SessionInfo is one live client session, as the dashboard shows it.
type SessionInfo struct {
	Tag     string // sessiontag.Of, or "stdio"
	Started time.Time
	// Allowed are the tools a person allowed for the rest of the session.
	Allowed []string
}

// Sessions lists the live client sessions.
func (p *Proxy) Sessions() []SessionInfo {
	var out []SessionInfo
	for _, s := range p.sessions.list() {
		out = append(out, SessionInfo{Tag: auditSession(s), Started: s.started, Allowed: s.approvals.List()})
	}
	return out
}

// Pins is the proxy's record of tool definitions (nil when pinning is
// off), for the dashboard's list of pinned and changed tools.
func (p *Proxy) Pins() *policy.Pins { return p.guard.pins }

// observeStart tells the observer that ctx's run starts.
func (p *Proxy) observeStart(ctx context.Context, code string) {
	if p.guard.obs == nil {
		return
	}
	run := runOf(ctx)
	p.guard.obs.RunStarted(RunStart{Time: time.Now(), Session: auditSession(sessionOf(ctx)), RunID: run.id,
		Language: run.lang, Code: p.pii.shownCode(ctx, code)})
}

// observeEnd tells the observer that ctx's run ended with text.
func (p *Proxy) observeEnd(ctx context.Context, start time.Time, host *scriptHost, calls int, text string, failed bool) {
	if p.guard.obs == nil {
		return
	}
	p.guard.obs.RunEnded(RunEnd{Session: auditSession(sessionOf(ctx)), RunID: runOf(ctx).id, Duration: time.Since(start),
		Calls: calls, ResultTokens: host.resultTokens.Load(), Output: text, IsError: failed})
}

// pageAskNote tells the model that a person was asked on the dashboard
// during ctx's run; "" when no one was.
func pageAskNote(ctx context.Context) string {
	f := runFrameOf(ctx)
	if f == nil || f.depth > 0 {
		return ""
	}
	switch n := f.budget.pageAsks.Load(); n {
	case 0:
		return ""
	case 1:
		return "\n[toolfold: a person was asked about 1 call on the toolfold dashboard]"
	default:
		return fmt.Sprintf("\n[toolfold: a person was asked about %d calls on the toolfold dashboard]", n)
	}
}
