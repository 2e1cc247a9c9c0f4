package upstream

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

// instances are the running session instances: each session's, by
// upstream name, and how many each upstream runs.
type instances struct {
	mu    sync.Mutex
	of    map[Session]map[string]*sessionInstance
	count map[string]int
}

// running is how many session instances of the upstream up run.
func (in *instances) running(up string) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.count[up]
}

// forSession returns the upstream that serves a call of ctx's client
// session to u: u itself unless u is scoped to sessions, else the
// session's own instance, started on first use.
func (p *Pool) forSession(ctx context.Context, u *upstream) (*upstream, error) {
	if u.cfg.Scope != config.ScopeSession || u.hooks == nil {
		return u, nil
	}
	s := u.hooks.SessionOf(ctx)
	if s == nil {
		return u, nil
	}
	inst, err := p.instanceOf(s, u)
	if err != nil {
		return nil, err
	}
	select {
	case <-inst.u.firstDone:
		return inst.u, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// instanceOf is s's instance of u, started if it has none. A session that
// has ended gets none: EndSession, which follows the end of its context,
// has stopped or will stop any it had.
func (p *Pool) instanceOf(s Session, u *upstream) (*sessionInstance, error) {
	p.inst.mu.Lock()
	defer p.inst.mu.Unlock()
	if inst := p.inst.of[s][u.cfg.Name]; inst != nil {
		return inst, nil
	}
	if s.Context().Err() != nil {
		return nil, &UnavailableError{Server: u.cfg.Name, Reason: "the client session has ended"}
	}
	if n := p.inst.count[u.cfg.Name]; n >= u.cfg.MaxInstances() {
		return nil, &UnavailableError{Server: u.cfg.Name, Reason: fmt.Sprintf(
			"it runs one instance per client session (scope: session) and %d already run, its instances bound; retry when a session ends, or raise instances in proxy.yaml", n)}
	}
	inst := p.startInstance(s, u)
	if p.inst.of == nil {
		p.inst.of, p.inst.count = map[Session]map[string]*sessionInstance{}, map[string]int{}
	}
	if p.inst.of[s] == nil {
		p.inst.of[s] = map[string]*sessionInstance{}
	}
	p.inst.of[s][u.cfg.Name] = inst
	p.inst.count[u.cfg.Name]++
	return inst, nil
}

// startInstance starts s's instance of u.
func (p *Pool) startInstance(s Session, u *upstream) *sessionInstance {
	iu := newUpstream(u.cfg, p.log.With("session", s.LogTag()), u.version, func() {}) // its tools are the shared instance's
	iu.scrub, iu.backoffMin, iu.hooks = u.scrub, u.backoffMin, u.hooks.ForSession(s)
	ctx, cancel := context.WithCancel(s.Context())
	inst := &sessionInstance{u: iu, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(inst.done)
		iu.run(ctx)
	}()
	return inst
}

// EndSession stops the instances s started; call it where the session
// ends, after its context has ended. Safe to call more than once.
func (p *Pool) EndSession(s Session) {
	p.inst.mu.Lock()
	list := p.inst.of[s]
	delete(p.inst.of, s)
	p.inst.mu.Unlock()
	for name, inst := range list {
		inst.cancel()
		<-inst.done
		inst.u.close()
		p.inst.mu.Lock()
		p.inst.count[name]--
		p.inst.mu.Unlock()
	}
}

// InstancesOf is the live sessions of s's own instances, by upstream name.
func (p *Pool) InstancesOf(s Session) map[string]*mcp.ClientSession {
	p.inst.mu.Lock()
	own := make([]*sessionInstance, 0, len(p.inst.of[s]))
	for _, inst := range p.inst.of[s] {
		own = append(own, inst)
	}
	p.inst.mu.Unlock()
	out := make(map[string]*mcp.ClientSession, len(own))
	for _, inst := range own {
		inst.u.mu.Lock()
		if cs := inst.u.cs; cs != nil {
			out[inst.u.cfg.Name] = cs
		}
		inst.u.mu.Unlock()
	}
	return out
}
