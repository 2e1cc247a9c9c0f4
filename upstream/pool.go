package upstream

import (
	"context"
	"fmt"
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
	hooks    Hooks // Options.Hooks; nil: none
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

// Options configure a Pool. The zero value is a pool without hooks (no
// middleware, no passing on of what an upstream asks a client), whose
// upstreams' stderr is kept as it is, logging nowhere.
type Options struct {
	Logger  *slog.Logger // nil: discard
	Version string       // toolfold's, in each upstream's initialize; "": "dev"
	// Hooks are how the pool calls back into its owner (hooks.go): the
	// middleware chains, the handlers of what an upstream asks or tells a
	// client, and the client session a call is made for. Nil: none.
	Hooks Hooks
	// Scrub replaces personal data in an upstream's stderr as it is
	// read, before it is logged or kept to explain a crash: that text is
	// quoted to every session and no session's vault owns it. Nil: kept
	// as it is (PII rewriting off).
	Scrub func(string) string
	// MinBackoff is the first wait before reconnecting a failed upstream;
	// it doubles up to 30 s. 0: 500 ms.
	MinBackoff time.Duration
}

// New prepares a pool of ups; Start connects it.
func New(ups []config.Upstream, opts *Options) *Pool {
	if opts == nil {
		opts = &Options{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	p := &Pool{log: log, hooks: opts.Hooks, byName: make(map[string]*upstream)}
	notify := func() {
		if p.onChange != nil {
			p.onChange()
		}
	}
	for _, c := range ups {
		u := newUpstream(c, log, version, notify)
		u.hooks, u.scrub = opts.Hooks, opts.Scrub
		if opts.MinBackoff > 0 {
			u.backoffMin = opts.MinBackoff
		}
		p.ups = append(p.ups, u)
		p.byName[c.Name] = u
	}
	return p
}

// Watch sets the function called (from any goroutine) whenever an
// upstream's tools or state change; call it before Start.
func (p *Pool) Watch(changed func()) { p.onChange = changed }

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

// Status is one row of `toolfold check`.
type Status struct {
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
	Instances   int // its running instances of client sessions' own (scope: session)
}

// Status reports every upstream, in config order.
func (p *Pool) Status() []Status {
	out := make([]Status, 0, len(p.ups))
	for _, u := range p.ups {
		u.mu.Lock()
		s := Status{
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
		s.Instances = p.inst.running(u.cfg.Name)
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

// Catalog reports every upstream as the catalog shows it: its Status,
// except that one whose first connection attempt is still to end and that
// has a cached tool list (SetCached) shows those tools, searchable at once,
// its Err saying that a call waits for the connection.
func (p *Pool) Catalog() []Status {
	st := p.Status()
	for i, s := range st {
		if u := p.byName[s.Name]; s.State == StateConnecting && s.Tools == nil && u.cached != nil {
			st[i].Tools, st[i].Err = u.cached, connectingCached
			if u.wake != nil && !p.isStarted(u) {
				st[i].Err = notStartedCached
			}
		}
	}
	return st
}

// Attempted reports whether every upstream's first connection attempt has
// ended (disabled ones count as ended).
func (p *Pool) Attempted() bool {
	for _, u := range p.ups {
		select {
		case <-u.firstDone:
		default:
			return false
		}
	}
	return true
}

// Has reports a configured upstream name.
func (p *Pool) Has(server string) bool {
	_, ok := p.byName[server]
	return ok
}

// Session is the upstream's live session (of its shared instance), or an
// *UnavailableError.
func (p *Pool) Session(server string) (*mcp.ClientSession, error) {
	u, ok := p.byName[server]
	if !ok {
		return nil, fmt.Errorf("no upstream named %q", server)
	}
	u.mu.Lock()
	cs, state, err := u.cs, u.state, u.err
	u.mu.Unlock()
	if cs == nil {
		reason := state
		if err != nil {
			reason = err.Error()
		}
		return nil, &UnavailableError{Server: server, Reason: reason}
	}
	return cs, nil
}

// CallTool calls server's tool params.Name with params as given
// (passthrough keeps _meta, such as a progress token), within its
// call_timeout, on the instance that serves ctx's client session
// (scope.go). An upstream that is not connected gives an
// *UnavailableError.
func (p *Pool) CallTool(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	u, ok := p.byName[server]
	if !ok {
		return nil, fmt.Errorf("no upstream named %q", server)
	}
	u, err := p.forSession(ctx, u)
	if err != nil {
		return nil, err
	}
	return u.callParams(ctx, params)
}
