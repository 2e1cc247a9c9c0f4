package proxy

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

// Upstreams with scope: session (config.ScopeSession) are started once
// per client session: the shared instance, started with the pool, lists the
// tools for the catalog and serves calls made outside a client session (a
// command's run); each client session that calls the upstream gets an
// instance of its own on its first call, stopped when the session ends, so
// one user's data in a stateful server never reaches another. At most
// Instances run at once per upstream; past that a call fails with a
// message that says so. Resources and prompts are still read from the
// shared instance.

// sessionInstance is one session's own instance of an upstream.
type sessionInstance struct {
	u      *upstream
	cancel context.CancelFunc
	done   chan struct{} // closed when its supervisor returned
}

// instances counts the running session instances of each upstream.
type instances struct {
	mu    sync.Mutex
	count map[string]int
}

// forSession returns the upstream that serves a call of ctx's client
// session to u: u itself unless u is scoped to sessions, else the
// session's own instance, started on first use.
func (p *Pool) forSession(ctx context.Context, u *upstream) (*upstream, error) {
	s := sessionOf(ctx)
	if u.cfg.Scope != config.ScopeSession || s == nil {
		return u, nil
	}
	s.mu.Lock()
	inst := s.instances[u.cfg.Name]
	if inst == nil {
		if s.ctx.Err() != nil {
			s.mu.Unlock()
			return nil, &UnavailableError{Server: u.cfg.Name, Reason: "the client session has ended"}
		}
		var err error
		if inst, err = p.startInstance(s, u); err != nil {
			s.mu.Unlock()
			return nil, err
		}
		if s.instances == nil {
			s.instances = map[string]*sessionInstance{}
		}
		s.instances[u.cfg.Name] = inst
	}
	s.mu.Unlock()
	select {
	case <-inst.u.firstDone:
		return inst.u, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// startInstance starts s's instance of u. Called with s.mu held.
func (p *Pool) startInstance(s *Session, u *upstream) (*sessionInstance, error) {
	p.inst.mu.Lock()
	if p.inst.count == nil {
		p.inst.count = map[string]int{}
	}
	if n := p.inst.count[u.cfg.Name]; n >= u.cfg.MaxInstances() {
		p.inst.mu.Unlock()
		return nil, &UnavailableError{Server: u.cfg.Name, Reason: fmt.Sprintf(
			"it runs one instance per client session (scope: session) and %d already run, its instances bound; retry when a session ends, or raise instances in proxy.yaml", n)}
	}
	p.inst.count[u.cfg.Name]++
	p.inst.mu.Unlock()
	iu := newUpstream(u.cfg, p.log.With("session", SessionTag(s.id)), u.version, func() {}, u.tel) // its tools are the shared instance's
	iu.scrub = u.scrub
	if u.hooks != nil {
		iu.hooks = pinnedHooks{u.hooks, s}
	}
	ctx, cancel := context.WithCancel(s.ctx)
	inst := &sessionInstance{u: iu, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(inst.done)
		iu.run(ctx)
	}()
	return inst, nil
}

// releaseSession stops the instances a session started, when it ends.
func (p *Pool) releaseSession(s *Session) {
	s.mu.Lock()
	list := s.instances
	s.instances = nil
	s.mu.Unlock()
	for name, inst := range list {
		inst.cancel()
		<-inst.done
		inst.u.close()
		p.inst.mu.Lock()
		p.inst.count[name]--
		p.inst.mu.Unlock()
	}
}

// pinnedHooks are the forwarder's hooks for one session's instance: what
// the instance asks or tells a client (sampling, elicitation, roots, log
// messages) goes to the session that owns it and no other, whatever the
// relay would guess from the upstream's name, which the shared instance
// and every other session's instance also bear. Roots changes are sent to
// the shared instance's client only.
type pinnedHooks struct {
	upstreamHooks
	s *Session
}

func (h pinnedHooks) pin(ctx context.Context) context.Context { return withSession(ctx, h.s) }

func (h pinnedHooks) clientCreated(string, *mcp.Client) {}

func (h pinnedHooks) connected(ctx context.Context, up string, cs *mcp.ClientSession) {
	h.upstreamHooks.connected(h.pin(ctx), up, cs)
}

func (h pinnedHooks) clientOptions(up string, o *mcp.ClientOptions) {
	h.upstreamHooks.clientOptions(up, o)
	if f := o.CreateMessageWithToolsHandler; f != nil {
		o.CreateMessageWithToolsHandler = func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			return f(h.pin(ctx), req)
		}
	}
	if f := o.ElicitationHandler; f != nil {
		o.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return f(h.pin(ctx), req)
		}
	}
	if f := o.ElicitationCompleteHandler; f != nil {
		o.ElicitationCompleteHandler = func(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
			f(h.pin(ctx), req)
		}
	}
	if f := o.LoggingMessageHandler; f != nil {
		o.LoggingMessageHandler = func(ctx context.Context, req *mcp.LoggingMessageRequest) { f(h.pin(ctx), req) }
	}
}

func (h pinnedHooks) receivingMiddleware(up string) mcp.Middleware {
	inner := h.upstreamHooks.receivingMiddleware(up)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		wrapped := inner(next)
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return wrapped(h.pin(ctx), method, req)
		}
	}
}
