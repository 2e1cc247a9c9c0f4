package proxy

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/oauth"
)

// Pool holds one supervised session per configured upstream. Upstreams
// connect concurrently; one that fails does not hold up or stop the others.
type Pool struct {
	log      *slog.Logger
	ups      []*upstream
	byName   map[string]*upstream
	onChange func()

	cancel context.CancelFunc
	wg     sync.WaitGroup
	inst   instances // scope: session instances running (scope.go)

	// onCall: upstreams with a cached tool list start on their first
	// call rather than in Start (SetStartOnCall).
	onCall  bool
	startMu sync.Mutex
	ctx     context.Context // Start's; nil before Start
	closed  bool
}

// NewPool prepares a pool; Start connects it. onChange is called (from any
// goroutine) whenever an upstream's tools or state change.
func NewPool(ups []config.Upstream, log *slog.Logger, version string, onChange func()) *Pool {
	return newPool(ups, log, version, onChange, nil)
}

// newPool is NewPool with the proxy's telemetry (nil: none).
func newPool(ups []config.Upstream, log *slog.Logger, version string, onChange func(), tel *telemetry) *Pool {
	p := &Pool{log: log, byName: make(map[string]*upstream), onChange: onChange}
	notify := func() {
		if p.onChange != nil {
			p.onChange()
		}
	}
	for _, c := range ups {
		u := newUpstream(c, log, version, notify, tel)
		p.ups = append(p.ups, u)
		p.byName[c.Name] = u
	}
	return p
}

// setScrub makes every upstream scrub its stderr with f; call before Start.
func (p *Pool) setScrub(f func(string) string) {
	for _, u := range p.ups {
		u.scrub = f
	}
}

// SetCached gives upstreams the tool lists they had when last connected
// (the catalog cache, by upstream name): until an upstream's first
// connection attempt ends, they are its tools in the catalog, marked as
// connecting, and WaitReady does not wait for it. Call before Start.
func (p *Pool) SetCached(tools map[string][]*mcp.Tool) {
	for name, t := range tools {
		if u, ok := p.byName[name]; ok && t != nil {
			u.cached = t
		}
	}
}

// connectingCached is the state of an upstream searched from its cached
// tool list.
const connectingCached = "connecting; tools listed from the catalog cache, callable once it has connected"

// notStartedCached is the state of an upstream searched from its cached
// tool list that starts on its first call (SetStartOnCall).
const notStartedCached = "not started; tools listed from the catalog cache, it starts on its first call"

// SetStartOnCall makes the upstreams that have a cached tool list
// (SetCached) start on the first call to one of their tools instead of in
// Start: a run from the command line starts only the upstreams its script
// calls. Those without a cached list still start in Start, since their
// tools are not known otherwise. Call before Start.
func (p *Pool) SetStartOnCall() {
	p.onCall = true
	for _, u := range p.ups {
		if u.cached != nil && !u.cfg.Disabled {
			u.wake = func() {
				if p.startOne(u) && p.onChange != nil {
					p.onChange() // no longer "not started"
				}
			}
		}
	}
}

// SetOAuth gives every HTTP upstream with oauth: settings its sign-in
// handler (package oauth), kept across its reconnects; call before Start.
// A nil opts leaves them without one: they fail to connect, saying so.
func (p *Pool) SetOAuth(opts *oauth.Options) {
	if opts == nil {
		return
	}
	for _, u := range p.ups {
		if o := u.cfg.OAuth; o != nil && u.cfg.Transport == "http" {
			u.auth = oauth.New(u.cfg.Name, u.cfg.URL, oauth.Settings{ClientID: o.ClientID, ClientSecret: o.ClientSecret, Scopes: o.Scopes}, opts)
		}
	}
}

// Start begins connecting every enabled upstream in the background.
func (p *Pool) Start(ctx context.Context) {
	ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	p.startMu.Lock()
	p.ctx = ctx
	p.startMu.Unlock()
	for _, u := range p.ups {
		if u.cfg.Disabled || u.wake != nil {
			continue // disabled, or started by its first call
		}
		p.startOne(u)
	}
}

// startOne starts supervising u, once, unless the pool is closed or not
// started yet; it reports whether it did.
func (p *Pool) startOne(u *upstream) bool {
	p.startMu.Lock()
	defer p.startMu.Unlock()
	if p.ctx == nil || p.closed || u.started {
		return false
	}
	u.started = true
	ctx := p.ctx
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		u.run(ctx)
	}()
	return true
}

// WaitReady blocks until every upstream's first connection attempt has
// finished (each bounded by its connect timeout) or ctx ends.
func (p *Pool) WaitReady(ctx context.Context) {
	for _, u := range p.ups {
		if u.cached != nil {
			continue // searchable from its cached tools meanwhile
		}
		select {
		case <-u.firstDone:
		case <-ctx.Done():
			return
		}
	}
}

// WaitCached waits, as WaitReady does for the others, for the first
// connection attempt of every upstream that WaitReady skips for its cached
// tools, or until ctx ends.
func (p *Pool) WaitCached(ctx context.Context) {
	for _, u := range p.ups {
		if u.cached == nil || u.wake != nil {
			continue // none cached, or waits for its first call
		}
		select {
		case <-u.firstDone:
		case <-ctx.Done():
			return
		}
	}
}

// Close disconnects every upstream and waits for their processes to end.
func (p *Pool) Close() {
	p.startMu.Lock()
	p.closed = true // no upstream starts from now on
	p.startMu.Unlock()
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
	for _, u := range p.ups {
		u.close()
	}
}

// UpstreamStatus is one row of `toolfold check`.
type UpstreamStatus struct {
	Name        string
	Description string
	Transport   string
	State       string
	Err         string
	Protocol    string
	ServerName  string // serverInfo.name reported by the upstream
	Tools       []*mcp.Tool
	ConnectTime time.Duration
	Restarts    int
}

// Status reports every upstream, in config order.
func (p *Pool) Status() []UpstreamStatus {
	out := make([]UpstreamStatus, 0, len(p.ups))
	for _, u := range p.ups {
		u.mu.Lock()
		s := UpstreamStatus{
			Name:        u.cfg.Name,
			Description: u.cfg.Description,
			Transport:   u.cfg.Transport,
			State:       u.state,
			Protocol:    u.protocol,
			Tools:       u.tools,
			ConnectTime: u.connectTime,
			Restarts:    u.restarts,
		}
		if u.err != nil {
			s.Err = u.err.Error()
		}
		if u.serverInfo != nil {
			s.ServerName = u.serverInfo.Name
		}
		u.mu.Unlock()
		out = append(out, s)
	}
	return out
}

// isStarted reports whether u's supervisor runs (or ran).
func (p *Pool) isStarted(u *upstream) bool {
	p.startMu.Lock()
	defer p.startMu.Unlock()
	return u.started
}
