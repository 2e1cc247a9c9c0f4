package proxy

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/policy"
)

// Asking a person. A tools/call of toolfold's (run_script, a passthrough
// or hybrid tool) may make calls the policy asks a person about. The
// question travels as a multi round-trip input request (protocol
// 2026-07-28): the handler returns a result holding only InputRequests
// and a RequestState, the client asks the person (its elicitation
// handler) and retries the call with InputResponses; the retry finds the
// work, still running, in the session's waiting calls by its
// RequestState, hands it the answers, and waits for it again, as often
// as the work asks. A client of an older protocol is asked directly, with
// elicitation/create during the call (the go-sdk would turn input
// requests into one such round only, and a script may ask several times).
// A client that declares no elicitation capability is never asked: its
// asks fail closed, with a message that says how to allow the tool in
// proxy.yaml.
//
// While a question is out, the work runs detached from the request that
// started it, bound by the session's life and, for the question, by
// policy.approval_timeout: a client that never answers gets a timeout
// refusal in the run, which then ends as it would, and its result is
// dropped a while later.

type askerKey struct{}

// withAsker records in ctx how calls made under it ask the person.
func withAsker(ctx context.Context, a policy.Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// NoPersonToAsk marks ctx for a run made where no person can be asked (a
// command's run, not a client's): a call the policy asks about fails
// closed, and its refusal gives why, which should say what to do.
func NoPersonToAsk(ctx context.Context, why string) context.Context {
	return withAsker(ctx, func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		return nil, errors.New(why)
	})
}

// askerOf is ctx's asker; nil when the client cannot be asked.
func askerOf(ctx context.Context) policy.Asker {
	a, _ := ctx.Value(askerKey{}).(policy.Asker)
	return a
}

// pendingCall is a tools/call's work that may wait for a person's answer.
type pendingCall struct {
	tool   string // the tools/call's name: a retry must name it too
	q      policy.Questions
	cancel context.CancelFunc
	done   chan struct{} // closed when res and err are set
	res    *mcp.CallToolResult
	err    error

	collectOnce sync.Once
	collected   chan struct{} // closed when a handler returned res and err
}

// collect marks the result delivered to the client.
func (pc *pendingCall) collect() { pc.collectOnce.Do(func() { close(pc.collected) }) }

// asking runs work, the body of a tools/call handler, so that the
// approvals its tool calls need reach the person: see above.
func (p *Proxy) asking(ctx context.Context, req *mcp.CallToolRequest, work func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	s := sessionOf(ctx)
	if state := req.Params.RequestState; state != "" && s != nil {
		pc := s.waitingCall(state)
		if pc == nil || pc.tool != req.Params.Name {
			return errorResult("this call's approval is no longer awaited (it timed out, or the call ended); make the call again"), nil
		}
		pc.q.Answer(req.Params.InputResponses)
		return p.await(ctx, s, state, pc)
	}
	if caps := req.ClientCapabilities(); s == nil || caps == nil || caps.Elicitation == nil {
		return work(ctx) // no asker: an ask fails closed
	}
	if !multiRoundTrip(s.ss) {
		return work(withAsker(ctx, s.ss.Elicit)) // asked with elicitation/create during the call
	}
	pc := &pendingCall{tool: req.Params.Name, done: make(chan struct{}), collected: make(chan struct{})}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	pc.cancel = cancel
	stop := context.AfterFunc(s.ctx, cancel)
	state := "approval-" + newRunID()
	go func() {
		defer stop()
		pc.res, pc.err = work(withAsker(wctx, pc.q.Ask))
		close(pc.done)
		// A result no retry collects is dropped after a while.
		t := time.NewTimer(p.guard.pol.ApprovalTimeout())
		defer t.Stop()
		select {
		case <-pc.collected:
		case <-t.C:
		case <-s.ctx.Done():
		}
		s.dropWaiting(state)
		cancel()
	}()
	return p.await(ctx, s, state, pc)
}

// await waits for pc's work to end, or for it to ask a question: then the
// call is parked in the session under state and the question returned as
// the result's input requests. The client's giving up on the request
// cancels the work.
func (p *Proxy) await(ctx context.Context, s *Session, state string, pc *pendingCall) (*mcp.CallToolResult, error) {
	stop := context.AfterFunc(ctx, pc.cancel)
	defer stop()
	for {
		select {
		case <-pc.done:
			s.dropWaiting(state)
			pc.collect()
			return pc.res, pc.err
		case <-pc.q.Asked():
			if reqs := pc.q.Requests(); reqs != nil {
				s.park(state, pc)
				return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}, nil
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// multiRoundTrip reports whether the client speaks protocol 2026-07-28 or
// later, where a server may not send elicitation/create while it serves a
// request (the go-sdk's own test of it).
func multiRoundTrip(ss *mcp.ServerSession) bool {
	ip := ss.InitializeParams()
	return ip == nil || ip.ProtocolVersion >= "2026-07-28"
}

// park keeps pc, waiting for the person, under state.
func (s *Session) park(state string, pc *pendingCall) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.waiting[state] = pc
}

// waitingCall is the call parked under state, nil when there is none.
func (s *Session) waitingCall(state string) *pendingCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.waiting[state]
}

func (s *Session) dropWaiting(state string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.waiting, state)
}
