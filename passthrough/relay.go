package passthrough

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Attribution: which client session an upstream's message belongs to.
//
// Upstream sessions are shared by every client session (one per upstream,
// package upstream), and the go-sdk client hands a server-to-client request
// (sampling, elicitation, roots/list) or a notification to its handler with
// the connection's context, not the context of the request that caused it;
// over streamable HTTP the link exists only as the SSE stream it arrived
// on, which the SDK does not expose. So the relay attributes as follows,
// most exact first:
//
//  1. The handler's own context, when it carries a client session: the
//     go-sdk fulfils a 2026-07-28 multi-round-trip request (inputRequests in
//     a result) inside the original call, so its context is the caller's.
//  2. Progress notifications carry the token toolfold put in the forwarded
//     request: an exact map back to the session and its own token.
//  3. The session with the most recent request still in flight to that
//     upstream (tracked by a sending middleware on every upstream request
//     made for a client, including tool calls from scripts). Exact whenever
//     one session at a time uses an upstream. A request stays in flight
//     until the notifications read before its result have been relayed
//     (package upstream's order.go), so a call's last log message still
//     finds it.
//  4. The session that last sent a request to that upstream, then the
//     session that last sent anything, if still connected.
//
// Requests with no session to go to fail with an error that says so; log
// messages with no in-flight caller go to every session (each session's
// logging/setLevel still filters them).
type relay struct {
	hub Hub            // the live sessions, each keeping its Routes
	seq *atomic.Uint64 // orders the requests attributed (Options.Seq)
	log *slog.Logger
}

// flight is a request in flight to an upstream on behalf of a client
// session: ctx is the context of the client's request it serves.
type flight struct {
	s   Session
	ctx context.Context
}

// progressRoute is where a progress notification from upstream goes.
type progressRoute struct {
	session Session
	token   any             // the client's own progress token
	ctx     context.Context // the client's request
}

// sendCtx is the context to send a message to a client session with: the
// values of the client request it belongs to (over streamable HTTP the SDK
// then sends it on that request's stream, where the client waits for it,
// rather than on the standalone stream, which the client may not have
// opened), and the cancellation of the upstream's handler context handler.
// Values of handler are not kept: they describe the upstream's connection
// (its request ids among them), not the client's. reqCtx may be nil.
func sendCtx(handler, reqCtx context.Context) (context.Context, context.CancelFunc) {
	base := context.Background()
	if reqCtx != nil {
		base = context.WithoutCancel(reqCtx)
	}
	ctx, cancel := context.WithCancel(base)
	stop := context.AfterFunc(handler, cancel)
	var stopReq func() bool
	if reqCtx != nil {
		stopReq = context.AfterFunc(reqCtx, cancel)
	}
	return ctx, func() {
		stop()
		if stopReq != nil {
			stopReq()
		}
		cancel()
	}
}

func newRelay(hub Hub, seq *atomic.Uint64, log *slog.Logger) *relay {
	return &relay{hub: hub, seq: seq, log: log}
}

// begin records a request of s (made in ctx) in flight to upstream up;
// the function returned ends it.
func (r *relay) begin(up string, s Session, ctx context.Context) (end func()) {
	id := r.seq.Add(1)
	rt := s.Routes()
	rt.mu.Lock()
	if rt.flights == nil {
		rt.flights, rt.lastCall = map[string]map[uint64]flight{}, map[string]uint64{}
	}
	m := rt.flights[up]
	if m == nil {
		m = map[uint64]flight{}
		rt.flights[up] = m
	}
	m[id] = flight{s, ctx}
	rt.lastCall[up] = id
	rt.mu.Unlock()
	return func() {
		rt.mu.Lock()
		delete(rt.flights[up], id)
		rt.mu.Unlock()
	}
}

// mapProgress replaces the client's progress token with one unique across
// sessions, for the upstream; undo removes the mapping.
func (r *relay) mapProgress(ctx context.Context, s Session, token any) (upToken string, undo func()) {
	upToken = fmt.Sprintf("toolfold-%d", r.seq.Add(1))
	rt := s.Routes()
	rt.mu.Lock()
	if rt.progress == nil {
		rt.progress = map[string]progressRoute{}
	}
	rt.progress[upToken] = progressRoute{session: s, token: token, ctx: ctx}
	rt.mu.Unlock()
	return upToken, func() {
		rt.mu.Lock()
		delete(rt.progress, upToken)
		rt.mu.Unlock()
	}
}

// progressFor finds where an upstream's progress token goes.
func (r *relay) progressFor(token any) (progressRoute, bool) {
	tok, ok := token.(string)
	if !ok {
		return progressRoute{}, false
	}
	for _, s := range r.live() {
		rt := s.Routes()
		rt.mu.Lock()
		pr, ok := rt.progress[tok]
		rt.mu.Unlock()
		if ok {
			return pr, true
		}
	}
	return progressRoute{}, false
}

// live is every client session still connected. Every session is in the
// registry from its first request (initialize), so nothing is made here:
// an upstream's message after shutdown finds no one.
func (r *relay) live() []Session {
	return r.hub.Sessions()
}

// isLive reports whether s is still connected.
func (r *relay) isLive(s Session) bool { return s != nil && s.Context().Err() == nil }

// target is the client session a server-to-client request from upstream up
// goes to (steps 1, 3 and 4 above), or nil; with the context of the client
// request it belongs to, when known.
func (r *relay) target(ctx context.Context, up string) (Session, context.Context) {
	s, reqCtx, how := r.pick(ctx, up)
	if s != nil {
		r.log.Debug("routing an upstream's request to a client session", "upstream", up, "session", s.LogTag(), "by", how)
	}
	return s, reqCtx
}

func (r *relay) pick(ctx context.Context, up string) (Session, context.Context, string) {
	if s := r.hub.SessionOf(ctx); r.isLive(s) {
		return s, ctx, "context"
	}
	live := r.live()
	var best flight
	var bestID, lastCall, lastSeen uint64
	var byCall, bySeen Session
	for _, s := range live {
		rt := s.Routes()
		rt.mu.Lock()
		for id, f := range rt.flights[up] {
			if id > bestID {
				best, bestID = f, id
			}
		}
		if c := rt.lastCall[up]; c > lastCall {
			lastCall, byCall = c, s
		}
		if rt.lastSeen > lastSeen {
			lastSeen, bySeen = rt.lastSeen, s
		}
		rt.mu.Unlock()
	}
	switch {
	case best.s != nil:
		return best.s, best.ctx, "request in flight"
	case byCall != nil:
		return byCall, nil, "last to use the upstream"
	case bySeen != nil:
		return bySeen, nil, "last active"
	case len(live) == 1:
		return live[0], nil, "only session"
	}
	return nil, nil, ""
}

// audience is where a log message from upstream up goes: the sessions with
// a request in flight there (each with that request's context), else every
// session.
func (r *relay) audience(ctx context.Context, up string) []flight {
	if s := r.hub.SessionOf(ctx); r.isLive(s) {
		return []flight{{s, ctx}}
	}
	live := r.live()
	var out []flight
	for _, s := range live {
		rt := s.Routes()
		rt.mu.Lock()
		for _, f := range rt.flights[up] {
			out = append(out, f)
			break // one message per session
		}
		rt.mu.Unlock()
	}
	if len(out) > 0 {
		return out
	}
	for _, s := range live {
		out = append(out, flight{s: s})
	}
	return out
}

// trackMiddleware is the sending middleware of every upstream client: it
// records the requests made for a client session (attribution step 3) and
// swaps their progress tokens for unique ones (step 2).
func (r *relay) trackMiddleware(up string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			s := r.hub.SessionOf(ctx)
			if s == nil {
				return next(ctx, method, req)
			}
			defer r.begin(up, s, ctx)()
			if p, ok := req.GetParams().(interface {
				GetMeta() map[string]any
				SetMeta(map[string]any)
			}); ok && !isNilParams(p) {
				if tok, has := p.GetMeta()["progressToken"]; has && tok != nil {
					upTok, undo := r.mapProgress(ctx, s, tok)
					defer undo()
					meta := make(map[string]any, len(p.GetMeta()))
					for k, v := range p.GetMeta() {
						meta[k] = v
					}
					meta["progressToken"] = upTok
					p.SetMeta(meta)
				}
			}
			return next(ctx, method, req)
		}
	}
}

// isNilParams reports a nil or typed-nil params value.
func isNilParams(p any) bool {
	if p == nil {
		return true
	}
	v := reflect.ValueOf(p)
	return v.Kind() == reflect.Pointer && v.IsNil()
}
