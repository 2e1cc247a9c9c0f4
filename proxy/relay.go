package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"reflect"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Attribution: which client session an upstream's message belongs to.
//
// Upstream sessions are shared by every client session (one per upstream,
// see pool.go), and the go-sdk client hands a server-to-client request
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
//     (noteOrder, order.go), so a call's last log message still finds it.
//  4. The session that last sent a request to that upstream, then the
//     session that last sent anything, if still connected.
//
// Requests with no session to go to fail with an error that says so; log
// messages with no in-flight caller go to every session (each session's
// logging/setLevel still filters them).
type relay struct {
	server func() *mcp.Server // the client-facing server, for the live sessions
	log    *slog.Logger

	mu         sync.Mutex
	seq        uint64
	inflight   map[string]map[uint64]flight  // upstream -> call -> who made it
	lastUser   map[string]*mcp.ServerSession // upstream -> last session to call it
	lastActive *mcp.ServerSession
	progress   map[string]progressRoute // token sent upstream -> the client's
}

// flight is a request in flight to an upstream on behalf of a client
// session: ctx is the context of the client's request it serves.
type flight struct {
	ss  *mcp.ServerSession
	ctx context.Context
}

// progressRoute is where a progress notification from upstream goes.
type progressRoute struct {
	session *mcp.ServerSession
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

func newRelay(server func() *mcp.Server, log *slog.Logger) *relay {
	return &relay{
		server:   server,
		log:      log,
		inflight: map[string]map[uint64]flight{},
		lastUser: map[string]*mcp.ServerSession{},
		progress: map[string]progressRoute{},
	}
}

type sessionKey struct{}

// withSession records the client session a request came from in ctx; every
// upstream request made on its behalf (directly or from a script) carries
// it.
func withSession(ctx context.Context, ss *mcp.ServerSession) context.Context {
	if ss == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, ss)
}

// sessionOf is the client session ctx was made for, or nil.
func sessionOf(ctx context.Context) *mcp.ServerSession {
	ss, _ := ctx.Value(sessionKey{}).(*mcp.ServerSession)
	return ss
}

// active notes that ss just sent a request.
func (r *relay) active(ss *mcp.ServerSession) {
	r.mu.Lock()
	r.lastActive = ss
	r.mu.Unlock()
}

// begin records a request of ss (made in ctx) in flight to upstream up;
// end(up, the id returned) ends it.
func (r *relay) begin(up string, ss *mcp.ServerSession, ctx context.Context) uint64 {
	r.mu.Lock()
	r.seq++
	id := r.seq
	m := r.inflight[up]
	if m == nil {
		m = map[uint64]flight{}
		r.inflight[up] = m
	}
	m[id] = flight{ss, ctx}
	r.lastUser[up] = ss
	r.mu.Unlock()
	return id
}

func (r *relay) end(up string, id uint64) {
	r.mu.Lock()
	delete(r.inflight[up], id)
	r.mu.Unlock()
}

// mapProgress replaces the client's progress token with one unique across
// sessions, for the upstream; undo removes the mapping.
func (r *relay) mapProgress(ctx context.Context, ss *mcp.ServerSession, token any) (upToken string, undo func()) {
	r.mu.Lock()
	r.seq++
	upToken = fmt.Sprintf("toolfold-%d", r.seq)
	r.progress[upToken] = progressRoute{session: ss, token: token, ctx: ctx}
	r.mu.Unlock()
	return upToken, func() {
		r.mu.Lock()
		delete(r.progress, upToken)
		r.mu.Unlock()
	}
}

// progressRoute finds where an upstream's progress token goes.
func (r *relay) progressFor(token any) (progressRoute, bool) {
	s, ok := token.(string)
	if !ok {
		return progressRoute{}, false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	pr, ok := r.progress[s]
	return pr, ok
}

// live reports the client sessions still connected.
func (r *relay) live() map[*mcp.ServerSession]bool {
	out := map[*mcp.ServerSession]bool{}
	if s := r.server(); s != nil {
		for ss := range s.Sessions() {
			out[ss] = true
		}
	}
	return out
}

// target is the client session a server-to-client request from upstream up
// goes to (steps 1, 3 and 4 above), or nil; with the context of the client
// request it belongs to, when known.
func (r *relay) target(ctx context.Context, up string) (*mcp.ServerSession, context.Context) {
	ss, reqCtx, how := r.pick(ctx, up)
	if ss != nil {
		r.log.Debug("routing an upstream's request to a client session", "upstream", up, "session", ss.ID(), "by", how)
	}
	return ss, reqCtx
}

func (r *relay) pick(ctx context.Context, up string) (*mcp.ServerSession, context.Context, string) {
	live := r.live()
	if ss := sessionOf(ctx); ss != nil && live[ss] {
		return ss, ctx, "context"
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var best flight
	var bestID uint64
	for id, f := range r.inflight[up] {
		if live[f.ss] && id > bestID {
			best, bestID = f, id
		}
	}
	if best.ss != nil {
		return best.ss, best.ctx, "request in flight"
	}
	if ss := r.lastUser[up]; ss != nil && live[ss] {
		return ss, nil, "last to use the upstream"
	}
	if ss := r.lastActive; ss != nil && live[ss] {
		return ss, nil, "last active"
	}
	if len(live) == 1 {
		for ss := range live {
			return ss, nil, "only session"
		}
	}
	return nil, nil, ""
}

// audience is where a log message from upstream up goes: the sessions with
// a request in flight there (each with that request's context), else every
// session.
func (r *relay) audience(ctx context.Context, up string) []flight {
	live := r.live()
	if ss := sessionOf(ctx); ss != nil && live[ss] {
		return []flight{{ss, ctx}}
	}
	r.mu.Lock()
	seen := map[*mcp.ServerSession]bool{}
	var out []flight
	for _, f := range r.inflight[up] {
		if live[f.ss] && !seen[f.ss] {
			seen[f.ss] = true
			out = append(out, f)
		}
	}
	r.mu.Unlock()
	if len(out) > 0 {
		return out
	}
	for ss := range live {
		out = append(out, flight{ss: ss})
	}
	return out
}

// forget drops what the relay holds for a closed session.
func (r *relay) forget(ss *mcp.ServerSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for up, s := range r.lastUser {
		if s == ss {
			delete(r.lastUser, up)
		}
	}
	if r.lastActive == ss {
		r.lastActive = nil
	}
	for tok, pr := range r.progress {
		if pr.session == ss {
			delete(r.progress, tok)
		}
	}
}

// trackMiddleware is the sending middleware of every upstream client: it
// records the requests made for a client session (attribution step 3) and
// swaps their progress tokens for unique ones (step 2).
func (r *relay) trackMiddleware(up string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ss := sessionOf(ctx)
			if ss == nil {
				return next(ctx, method, req)
			}
			defer r.end(up, r.begin(up, ss, ctx))
			if p, ok := req.GetParams().(interface {
				GetMeta() map[string]any
				SetMeta(map[string]any)
			}); ok && !isNilParams(p) {
				if tok, has := p.GetMeta()["progressToken"]; has && tok != nil {
					upTok, undo := r.mapProgress(ctx, ss, tok)
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
