package proxy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/learn"
	"github.com/toolfold/toolfold/internal/sessiontag"
	"github.com/toolfold/toolfold/passthrough"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/rewrite"
	"github.com/toolfold/toolfold/upstream"
	"github.com/toolfold/toolfold/workspace"
)

// Session is one client session: the stdio client, or one Mcp-Session-Id
// over streamable HTTP. It owns everything toolfold keeps for that client,
// so that the session's state has one place and ends in one place, however
// the session ends (an HTTP DELETE, a dropped connection, the idle
// timeout, the proxy's shutdown):
//
//   - ctx, its lifetime: every request of the session is cancelled with it
//     (sessionMiddleware), so a running script or upstream call stops
//     rather than being awaited;
//   - vault, the PII tokens its client has seen (rewrite.go);
//   - level, what it asked logging/setLevel for (package passthrough);
//   - ws, its part of the workspaces and run slots (package workspace):
//     its script directory and, when persisted, its lock, the runs in it,
//     its share of the run slots; the warm sandbox children bound to that
//     directory go with it (Proxy.forgetWorkspace);
//   - searches, its recent search_tools queries, for learning (package learn);
//   - routes, the relay's bookkeeping: its requests in flight to each
//     upstream and the progress tokens they carry (package passthrough);
//   - its own instances of scope: session upstreams, which the pool
//     keeps (package upstream's scope.go) and stops as the session ends;
//   - approvals, the tools a person allowed for the session, and the
//     calls waiting for a person's answer (approval.go).
//
// Sessions are made by the registry (sessions) when their first request
// arrives, and found in a request's context with sessionOf.
type Session struct {
	id      string             // the Mcp-Session-Id; "" for the stdio session
	ss      *mcp.ServerSession // to send the client requests and notifications
	ctx     context.Context    // ends with the session or the proxy
	started time.Time
	cancel  context.CancelFunc
	vault   *rewrite.Vault // nil when PII rewriting is off
	// approvals are the tools a person allowed for the rest of this
	// session (policy); they end with it.
	approvals policy.Approvals
	// ws is its workspace and its share of the run slots; its end
	// releases it (Proxy.workspaces).
	ws *workspace.Owner
	// warmed: an HTTP session starts its first runs' children on its
	// first search_tools (warm.go), once.
	warmed sync.Once
	// routes is the relay's bookkeeping of the session (passthrough.Routes).
	routes passthrough.Routes

	// mu guards what follows, except where a field says otherwise.
	mu       sync.Mutex
	level    mcp.LoggingLevel        // logging/setLevel; "" when never set
	waiting  map[string]*pendingCall // calls parked on a person's answer, by RequestState (approval.go)
	searches learn.Recent            // guarded by the Learner's mutex

	endOnce sync.Once
}

// ID is the session's Mcp-Session-Id, "" for the stdio session.
func (s *Session) ID() string { return s.id }

// Context ends when the session does.
func (s *Session) Context() context.Context { return s.ctx }

// ServerSession sends the session's client requests and notifications.
func (s *Session) ServerSession() *mcp.ServerSession { return s.ss }

// Routes is the relay's bookkeeping of the session (package passthrough).
func (s *Session) Routes() *passthrough.Routes { return &s.routes }

var _ passthrough.Session = (*Session)(nil)

// workspace is s's part of the workspaces and run slots; nil for a nil s
// (a run outside a client session).
func (s *Session) workspace() *workspace.Owner {
	if s == nil {
		return nil
	}
	return s.ws
}

// sessions is the registry of live client sessions.
type sessions struct {
	life     context.Context       // the proxy's: every session's ends with it
	newVault func() *rewrite.Vault // nil when PII rewriting is off
	// release undoes, when a session ends, what other parts of the proxy
	// made for it outside the Session value: its workspace directory.
	release func(*Session)
	// started, when set, is called in its own goroutine with each new
	// session: it starts the children of the session's first runs.
	started func(*Session)

	seq atomic.Uint64 // orders the requests the relay attributes (passthrough.Options.Seq)

	mu  sync.Mutex
	all map[*mcp.ServerSession]*Session
}

func newSessions(life context.Context, newVault func() *rewrite.Vault) *sessions {
	return &sessions{life: life, newVault: newVault, all: map[*mcp.ServerSession]*Session{}}
}

// get returns the Session of ss, making it on its first request; nil for a
// nil ss (a run made outside a client session: a command, a test).
func (r *sessions) get(ss *mcp.ServerSession) *Session {
	if ss == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if s, ok := r.all[ss]; ok {
		return s
	}
	ctx, cancel := context.WithCancel(r.life)
	s := &Session{id: ss.ID(), ss: ss, ctx: ctx, cancel: cancel, started: time.Now(),
		ws:      workspace.NewOwner(ctx, ss.ID() == ""), // the stdio session's may be kept (sandbox.workspace_dir)
		waiting: map[string]*pendingCall{}}
	if r.newVault != nil {
		s.vault = r.newVault()
	}
	r.all[ss] = s
	go func() {
		_ = ss.Wait()
		r.end(s)
	}()
	if r.started != nil {
		go r.started(s)
	}
	return s
}

// list is every live session.
func (r *sessions) list() []*Session {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Session, 0, len(r.all))
	for _, s := range r.all {
		out = append(out, s)
	}
	return out
}

// cancelID cancels what the session with this id has running. The SDK
// waits for a closing session's handlers to return before it counts the
// session as ended, and does not cancel them: an HTTP DELETE would
// otherwise leave its requests (and their upstream calls and scripts)
// running to their timeouts. The session then ends as the SDK closes it.
func (r *sessions) cancelID(id string) {
	if id == "" {
		return
	}
	for _, s := range r.list() {
		if s.id == id {
			s.cancel()
		}
	}
}

// liveHTTP counts the live HTTP sessions (http.max_sessions bounds them):
// those that initialized. A client's server/discover probe, which comes
// before its initialize without a session id, gets a session of its own
// from the SDK that ends with its answer; counted, it made the next
// client's initialize a refusal while it lingered.
func (r *sessions) liveHTTP() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.all {
		if s.id != "" && s.ss.InitializeParams() != nil {
			n++
		}
	}
	return n
}

// detachID takes the session with this id out of the registry at once,
// after its client's DELETE, so that it no longer counts against
// http.max_sessions; it ends (end) as the SDK closes it.
func (r *sessions) detachID(id string) {
	if id == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for ss, s := range r.all {
		if s.id == id {
			s.cancel()
			delete(r.all, ss)
		}
	}
}

// end is the one way a session ends: its context is cancelled, it leaves
// the registry, and what was made for it is released. Safe to call more
// than once.
func (r *sessions) end(s *Session) {
	s.endOnce.Do(func() {
		s.cancel()
		r.mu.Lock()
		if r.all[s.ss] == s {
			delete(r.all, s.ss)
		}
		r.mu.Unlock()
		if r.release != nil {
			r.release(s)
		}
	})
}

// closeAll ends every session, at the proxy's shutdown.
func (r *sessions) closeAll() {
	for _, s := range r.list() {
		r.end(s)
	}
}

// SetLogLevel records the session's logging level.
func (s *Session) SetLogLevel(l mcp.LoggingLevel) {
	s.mu.Lock()
	s.level = l
	s.mu.Unlock()
}

// LogLevel is the level the session asked for, "" if none.
func (s *Session) LogLevel() mcp.LoggingLevel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.level
}

// own is the *Session behind a session the pool or the forwarder hands
// back: every one they have came from sessionOf or the registry.
func own(s upstream.Session) *Session {
	x, _ := s.(*Session)
	return x
}

type sessionKey struct{}

// withSession records in ctx the client session a request came from;
// every upstream request made on its behalf (directly or from a script)
// carries it.
func withSession(ctx context.Context, s *Session) context.Context {
	if s == nil {
		return ctx
	}
	return context.WithValue(ctx, sessionKey{}, s)
}

// sessionOf is the client session ctx was made for, or nil.
func sessionOf(ctx context.Context) *Session {
	s, _ := ctx.Value(sessionKey{}).(*Session)
	return s
}

// sessionMiddleware finds the Session of each request, puts it (and its
// PII vault) in the request's context, and ends that context with the
// session or, for a request without one, with the proxy.
func sessionMiddleware(reg *sessions, pii *piiState) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			s := reg.get(ss)
			life := reg.life
			if s != nil {
				life = s.ctx
				s.routes.Seen(reg.seq.Add(1))
				ctx = withSession(ctx, s)
				if s.vault != nil {
					ctx = pii.withVault(ctx, s.vault)
				}
			}
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(life, cancel)()
			return next(ctx, method, req)
		}
	}
}

// LogTag names the session in logs by its tag (upstream.Session).
func (s *Session) LogTag() string { return sessiontag.Of(s.id) }

// recentSearches are the session's recent searches for the Learner; nil
// outside a session.
func (s *Session) recentSearches() *learn.Recent {
	if s == nil {
		return nil
	}
	return &s.searches
}
