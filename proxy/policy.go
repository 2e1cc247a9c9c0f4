package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/internal/sessiontag"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/sandbox"
	"go.opentelemetry.io/otel/trace"
)

// guard is the proxy's side of package policy and package audit: it knows
// each provider tool's annotations and whether its definition changed
// since it was pinned, and its middleware (the "policy" entry of
// callChain) decides every tool call, asks a person when the policy says
// so, and writes the audit line.
type guard struct {
	pol    *policy.Policy
	flows  *policy.Flows // pii.flows (flows.go)
	reveal bool          // policy.approval_reveal: forms show whole values
	pins   *policy.Pins  // nil: pinning is off (policy.pin_tools: false) or there is no store
	audit  *audit.Log    // nil: the audit is off
	obs    Observer      // nil: none (observer.go)
	pii    *piiState     // tokenizes what the audit and the observer get (tokenizer.go); nil: PII off
	log    *slog.Logger

	tools atomic.Pointer[map[string]policy.Tool] // qualified name -> what a decision looks at

	mu   sync.Mutex
	seen map[string]pinSeen // qualified name -> the definition last checked against its pin
}

// pinSeen is a definition checked against its pin, and what was found.
type pinSeen struct {
	hash    string
	changed bool
	unknown bool // the store failed: held until it answers
}

func newGuard(pol *policy.Policy, pins *policy.Pins, aud *audit.Log, log *slog.Logger) *guard {
	return &guard{pol: pol, pins: pins, audit: aud, log: log, seen: map[string]pinSeen{}}
}

// update records the tools every provider offers now, checking each
// definition against its pin: a tool seen first is pinned, one whose
// definition changed is held (its calls ask first) until approved. Only
// a definition not checked before costs a store access.
func (g *guard) update(ctx context.Context, servers []ProvidedServer) {
	m := map[string]policy.Tool{}
	for _, s := range servers {
		for _, t := range s.Tools {
			q := s.Name + "." + t.Name
			m[q] = policy.Tool{Name: q, Annotations: t.Annotations, Changed: g.pinChanged(ctx, q, t)}
		}
	}
	g.tools.Store(&m)
}

// pinChanged checks t's definition against its pin. A store that fails
// (read or write) holds the tool as changed, new or not: it fails closed,
// with a warning, and is asked again at the next rebuild and at each call.
func (g *guard) pinChanged(ctx context.Context, q string, t *mcp.Tool) bool {
	if g.pins == nil {
		return false
	}
	h := policy.Hash(t)
	g.mu.Lock()
	defer g.mu.Unlock()
	if ps, ok := g.seen[q]; ok && ps.hash == h && !ps.unknown {
		return ps.changed
	}
	state, err := g.pins.Check(ctx, q, h)
	if err != nil {
		g.log.Warn("policy: cannot check the tool's pin; it is held (each call asks first) until the store answers", "tool", q, "err", err)
		g.seen[q] = pinSeen{hash: h, changed: true, unknown: true}
		return true
	}
	g.seen[q] = pinSeen{hash: h, changed: state == policy.PinChanged}
	if state == policy.PinChanged {
		g.log.Warn("policy: the tool's definition changed since it was pinned; each call asks first until `toolfold tools approve` accepts it", "tool", q)
	}
	return state == policy.PinChanged
}

// tool is what a decision about q looks at now. A held tool is checked
// against its pin again, so that `toolfold tools approve` (another
// process) takes effect at the next call.
func (g *guard) tool(ctx context.Context, q string) policy.Tool {
	t := policy.Tool{Name: q}
	if m := g.tools.Load(); m != nil {
		if pt, ok := (*m)[q]; ok {
			t = pt
		}
	}
	if t.Changed && g.pins != nil {
		g.mu.Lock()
		h := g.seen[q].hash
		g.mu.Unlock()
		if state, err := g.pins.Check(ctx, q, h); err == nil && state != policy.PinChanged {
			t.Changed = false
			g.forgetChange(q)
		}
	}
	return t
}

// forgetChange marks q approved in the current snapshot.
func (g *guard) forgetChange(q string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.seen[q] = pinSeen{hash: g.seen[q].hash}
	old := g.tools.Load()
	if old == nil {
		return
	}
	m := make(map[string]policy.Tool, len(*old))
	for k, v := range *old {
		m[k] = v
	}
	t := m[q]
	t.Changed = false
	m[q] = t
	g.tools.Store(&m)
}

// label is what search_tools shows beside q: "denied", "asks first", ...
func (g *guard) label(q string) string {
	t := policy.Tool{Name: q}
	if m := g.tools.Load(); m != nil {
		if pt, ok := (*m)[q]; ok {
			t = pt
		}
	}
	return g.pol.Label(t)
}

// middleware is callChain's "policy" entry: it authorizes each call (a
// deny, a rate, an ask answered by the person or the session's earlier
// "allow for this session"), makes it when allowed, and writes one audit
// line either way. The asker is the one the tools/call handler put in the
// context (approval.go); none means the client cannot be asked, and an
// ask fails closed.
func (g *guard) middleware() callMiddleware {
	return func(next callFunc) callFunc {
		return func(ctx context.Context, c toolCall) (callResult, error) {
			s := sessionOf(ctx)
			var approvals *policy.Approvals
			var sid string
			if s != nil {
				approvals, sid = &s.approvals, s.id
			}
			run := runOf(ctx)
			asid := auditSession(s)
			t := g.tool(ctx, c.Name)
			var args json.RawMessage // tokenized only when someone will read them
			var notes []policy.TokenNote
			d := g.pol.Decide(t)
			if g.audit != nil || g.obs != nil || d.Action == policy.Ask {
				args, notes = g.pii.shownArgs(ctx, c.Args)
			}
			ask := g.observed(ctx, askerOf(ctx), func() Approval {
				why := d.Rule.String() + " asks a person first"
				if d.Changed {
					why = "the tool's definition changed since toolfold pinned it"
				}
				return approvalOf(c.Name, args, why, notes)
			})
			v, err := g.pol.Authorize(ctx, policy.Call{Tool: t, Session: sid, RunID: run.id, Args: args, Tokens: notes, Reveal: g.reveal},
				approvals, pausing(ask))
			start := time.Now()
			var res callResult
			if err == nil {
				res, err = next(ctx, c)
			}
			g.record(ctx, audit.Record{Kind: audit.KindCall, Time: start, Session: asid, RunID: run.id,
				Language: run.lang, CodeHash: run.codeHash, Tool: c.Name, Args: args,
				Decision: string(v.Action), Rule: v.Rule.String(), Approval: string(v.Approval),
				Duration: time.Since(start), ResultBytes: res.Bytes, IsError: res.IsError || err != nil}, err)
			return res, err
		}
	}
}

// pausing wraps ask so that the run's wall clock stops while the person
// decides (sandbox.PauseClock, and the budget of the skills the run calls
// later); policy.approval_timeout bounds the wait.
func pausing(ask policy.Asker) policy.Asker {
	if ask == nil {
		return nil
	}
	return func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		defer sandbox.PauseClock(ctx)()
		if f := runFrameOf(ctx); f != nil { // the time skills called later get
			defer func(start time.Time) { f.budget.paused.Add(int64(time.Since(start))) }(time.Now())
		}
		return ask(ctx, p)
	}
}

// record writes an audit line; err, when set, is the call's or run's
// failure, tokenized like everything the model sees.
func (g *guard) record(ctx context.Context, r audit.Record, err error) {
	if g.audit == nil && g.obs == nil {
		return
	}
	if err != nil {
		r.Error = g.pii.auditError(ctx, r.Tool, err) // tokenizer.go
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		r.TraceID = sc.TraceID().String()
	}
	if g.obs != nil {
		g.obs.Recorded(r)
	}
	_ = g.audit.Write(r) // a failure is logged by the audit; the call goes on
}

// auditSession names s in the audit: its tag (sessiontag.Of; the id itself
// is a credential, never written down), "stdio" for the stdio session, ""
// outside a client session (a command's run).
func auditSession(s *Session) string {
	switch {
	case s == nil:
		return ""
	case s.id == "":
		return "stdio"
	}
	return sessiontag.Of(s.id)
}

// isRefusal reports whether err is the policy's refusal of a call; its
// message names the tool already.
func isRefusal(err error) bool {
	var r *policy.Refusal
	var fr *policy.FlowRefusal
	return errors.As(err, &r) || errors.As(err, &fr)
}

// runInfo names the run a call belongs to, for approvals and the audit.
type runInfo struct {
	id       string // "" for a call outside any run (passthrough)
	lang     string
	codeHash string
}

// runOf is the run of ctx's run chain (a skill's calls count as the
// top-level run's); the zero runInfo outside one.
func runOf(ctx context.Context) runInfo {
	if f := runFrameOf(ctx); f != nil {
		return f.budget.run
	}
	return runInfo{}
}

// newRunID names a run: "run-" and 8 random hex digits, unique enough to
// find a run in one session's audit lines.
func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "run-" + hex.EncodeToString(b[:])
}

// The run chain: a top-level run (run_script, tools.go; or a skill a
// client calls outside any script) starts one, with its runInfo and its
// budget; the skills it calls run nested in it (package skillhost,
// skillhub.go) and share both: its wall time, paused while a person
// decides (pausing), its tool calls (spendCall, host.go), the approvals
// put to a person on the dashboard (observer.go), and its run id in
// approvals and the audit (runOf).

// runBudget is what a top-level run and the skills it calls share.
type runBudget struct {
	run      runInfo      // the top-level run: its id, language and code hash
	deadline time.Time    // the top-level run's wall-clock end, but for pauses
	paused   atomic.Int64 // nanoseconds the run's clock was paused (a person deciding): added to deadline
	calls    atomic.Int64 // tool calls left
	limit    int          // sandbox.max_tool_calls
	pageAsks atomic.Int32 // approvals put to a person on the dashboard (observer.go)
}

// runFrame is one run's place in a chain of nested runs.
type runFrame struct {
	budget *runBudget
	depth  int // 0 for the top-level run
}

type runFrameKey struct{}

func withRunFrame(ctx context.Context, f *runFrame) context.Context {
	return context.WithValue(ctx, runFrameKey{}, f)
}

func runFrameOf(ctx context.Context) *runFrame {
	f, _ := ctx.Value(runFrameKey{}).(*runFrame)
	return f
}

// left is the wall time the run chain has left.
func (b *runBudget) left() time.Duration {
	return time.Until(b.deadline) + time.Duration(b.paused.Load())
}

// topFrame starts the budget of a top-level run of code in lang.
func (p *Proxy) topFrame(ctx context.Context, lang, code string) context.Context {
	b := &runBudget{deadline: time.Now().Add(p.cfg.Sandbox.Timeout), limit: p.cfg.Sandbox.MaxToolCalls,
		run: runInfo{id: newRunID(), lang: lang, codeHash: audit.CodeHash(code)}}
	b.calls.Store(int64(p.cfg.Sandbox.MaxToolCalls))
	return withRunFrame(ctx, &runFrame{budget: b})
}

// spendCall takes one tool call from the budget of ctx's run chain; an
// error when a nested chain has used them all.
func spendCall(ctx context.Context, name string) error {
	f := runFrameOf(ctx)
	if f == nil || f.budget.calls.Add(-1) >= 0 {
		return nil
	}
	return &sandbox.ToolError{Tool: name, Msg: fmt.Sprintf(
		"tool call limit of %d per run reached (the calls of the skills it ran count too); do more per call or raise sandbox.max_tool_calls",
		f.budget.limit)}
}
