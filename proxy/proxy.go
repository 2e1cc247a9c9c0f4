package proxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/internal/learn"
	"github.com/toolfold/toolfold/internal/sessiontag"
	"github.com/toolfold/toolfold/oauth"
	"github.com/toolfold/toolfold/passthrough"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skillhost"
	"github.com/toolfold/toolfold/skills"
	"github.com/toolfold/toolfold/store"
	"github.com/toolfold/toolfold/telemetry"
	"github.com/toolfold/toolfold/upstream"
	"github.com/toolfold/toolfold/workspace"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

// Options configure a Proxy. A nil *Options is valid: every zero field has
// a useful default.
type Options struct {
	Logger  *slog.Logger // nil discards
	Version string       // reported to clients and upstreams; default "dev"
	// Runners serve run_script, by language. Nil means the Lua runner,
	// re-executing this binary (its main must call sandbox.ChildMain).
	Runners []sandbox.Runner
	// Providers offer tools besides the upstreams' (provider.go), such as
	// saved skills: searchable, callable from scripts, and exposed in
	// passthrough and hybrid modes like an upstream's. Nil: upstreams only.
	// Their servers follow the upstreams in search_tools' server list.
	Providers []Provider

	// OpenTelemetry (package telemetry). The proxy uses the API only; the caller
	// installs the SDK and exporters.
	TracerProvider trace.TracerProvider // nil: no tracing, no cost (noop)
	MeterProvider  metric.MeterProvider // nil: no metrics (noop)
	CaptureContent bool                 // record tool arguments/results on spans (off by default)

	// Store keeps what outlives a client session and is shared between
	// replicas (package store). Nil: nothing is shared beyond the process.
	Store store.Store

	// ReadyCheck, if set, is asked by /readyz whether what the proxy
	// depends on beyond its upstreams (the shared store) answers.
	ReadyCheck func(context.Context) error

	// Skills keeps saved skills; nil means the shared Store when the
	// config names one (skills.NewKV), else the files in the config's
	// skills.dir (skills.NewFiles).
	Skills skills.Store
	// Audit receives a line per tool call and per run (package audit);
	// nil records nothing. The caller opens and closes it.
	Audit *audit.Log

	// CachedTools are upstreams' tool lists from when they last connected
	// (the catalog cache), by name: searchable, marked as connecting,
	// until the upstream's first connection attempt ends; WaitReady does
	// not wait for them. Nil: none.
	CachedTools map[string][]*mcp.Tool
	// StartOnCall starts an upstream with CachedTools on the first call to
	// one of its tools instead of in Start (a run from the command line
	// starts only the upstreams its script calls); until then it is
	// searched from its cached tools. Upstreams without cached tools start
	// in Start, as ever.
	StartOnCall bool

	// OAuth signs in to the HTTP upstreams with oauth: settings (package
	// oauth): where tokens are kept, and whether a sign-in may start by
	// itself (Open). Nil: such an upstream fails to connect, saying so.
	OAuth *oauth.Options

	// Observer is told of runs, calls and approvals as they happen, and
	// is asked beside the client when a call needs a person (observer.go):
	// the local dashboard. Nil: none, and a client that cannot ask fails
	// every ask closed.
	Observer Observer
}

// Proxy is toolfold: a pool of upstream sessions, the catalog of their
// tools, and the client-facing MCP server that advertises search_tools and
// run_script.
type Proxy struct {
	cfg     *config.Config
	log     *slog.Logger
	version string
	pool    *upstream.Pool
	tools   *providers // the pool, then Options.Providers: every tool's source
	runners map[string]sandbox.Runner
	langs   []string
	server  *mcp.Server
	tel     *telemetry.Telemetry   // nil when neither provider is set
	pii     *piiState              // nil when PII rewriting is off (rewrite.go)
	fwd     *passthrough.Forwarder // everything but tools, passed through (package passthrough)

	catalog atomic.Pointer[index.Index]
	// catalogPII is what the scan of the catalog found (catalogpii.go).
	catalogPII atomic.Pointer[catalogPII]
	refreshMu  sync.Mutex // one refresh at a time, so an older snapshot never overwrites a newer one
	// refreshReq counts requested refreshes; refreshDone (under refreshMu)
	// is the request count the last rebuild covered. Requests made while a
	// rebuild waits are served by one rebuild, not one each: 124 upstreams
	// connecting at once rebuild the catalog a few times, not 124.
	refreshReq  atomic.Int64
	refreshDone int64

	// life ends when the proxy shuts down; every client request's context
	// is tied to it (sessionMiddleware, session.go), so a running script or
	// upstream call is cancelled rather than awaited.
	life     context.Context
	stopLife context.CancelFunc

	// slots bounds the scripts running at once across all sessions, and
	// shares them between sessions (package workspace).
	slots *workspace.Slots

	sessions   *sessions      // every client session's state (session.go)
	workspaces *workspace.Set // one directory per client session

	toolsMu  sync.Mutex // serializes re-advertising the two tools
	advertis [2]*mcp.Tool

	learn *learn.Learner // what search learns from use

	drain       drainState                  // HTTP requests in flight, draining (health.go)
	bodyTimeout time.Duration               // a request body's deadline; 0: httplimit.BodyTimeout
	readyCheck  func(context.Context) error // Options.ReadyCheck
	store       store.Store                 // Options.Store; may be nil
	skills      *skillhost.Provider         // saved skills as a provider's tools (package skillhost, skillhub.go)
	trees       *codeTrees                  // the servers/ and skills/ trees runs see (codetree.go)
	guard       *guard                      // policy, pins and audit of every tool call (policy.go)
}

// New builds a proxy for cfg. Start connects the upstreams.
func New(cfg *config.Config, opts *Options) *Proxy {
	if opts == nil {
		opts = &Options{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = sessiontag.Redact(log) // the go-sdk's too: no session id in a log
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	p := &Proxy{cfg: cfg, log: log, version: version, runners: make(map[string]sandbox.Runner), readyCheck: opts.ReadyCheck, store: opts.Store}
	p.learn = learn.New(cfg, opts.Store, log)
	p.pii = newPIIState(cfg.PII, log)
	p.tel = telemetry.New(telemetry.Config{TracerProvider: opts.TracerProvider, MeterProvider: opts.MeterProvider,
		CaptureContent: opts.CaptureContent, Version: version, Logger: log, Clean: p.pii.scrubFunc(),
		SessionTag: sessiontag.Of, ExpectedFailure: expectedFailure, Disconnected: upstream.Disconnected})
	p.life, p.stopLife = context.WithCancel(context.Background())
	p.sessions = newSessions(p.life, p.pii.newVaultFunc())
	p.slots = workspace.NewSlots(max(4, 2*runtime.NumCPU()))
	runners := opts.Runners
	if runners == nil {
		runners = []sandbox.Runner{sandbox.NewLua(&sandbox.LuaOptions{Logger: log.With("component", "sandbox")})}
	}
	for _, r := range runners {
		p.runners[r.Language()] = r
		p.langs = append(p.langs, r.Language())
	}
	p.workspaces = workspace.New(&workspace.Options{Size: cfg.Sandbox.WorkspaceBytes, Budget: cfg.Sandbox.WorkspaceBudget,
		Dir: cfg.Sandbox.WorkspaceDir, Logger: log, Forget: p.forgetWorkspace})
	p.workspaces.Mount(workspaceBound()) // a tmpfs per workspace where toolfold may mount
	p.sessions.release = func(s *Session) {
		p.workspaces.Release(s.ws) // once its runs answered at done have ended
		p.trees.forget(s)
		p.pool.EndSession(s) // its own instances of scope: session upstreams
	}
	p.sessions.started = func(s *Session) { // warm.go
		// The stdio session, toolfold's one client, starts its first runs'
		// children at once; an HTTP session on its first search_tools
		// (prestartOnSearch), not on connecting.
		if s.id == "" {
			p.prestart(s)
		}
	}
	p.pool = p.newPool() // chain.go
	p.skills = skillhost.New(skillhost.Options{Store: skillStore(cfg, opts), Config: cfg.Skills, Sandbox: cfg.Sandbox,
		Runners: p.runnerList(), Hub: skillHub{p}, Life: p.life, Logger: log})
	p.trees = newCodeTrees(log)
	p.trees.onReady = p.prestart // a session's warm children bind the newest tree
	own := append([]Provider{skillsProvider{p.skills}}, opts.Providers...)
	p.tools = newProviders(log, append([]Provider{upstreamProvider{p.pool}}, ownEdges(own, p.ownChain)...)) // chain.go
	p.guard = newGuard(newPolicy(cfg, opts.Store, log), newPins(cfg, opts.Store), opts.Audit, log)
	p.guard.flows, p.guard.reveal = policy.NewFlows(cfg.PII.Flows), cfg.Policy.ApprovalReveal
	p.guard.obs = opts.Observer
	p.guard.pii = p.pii // the audit and the observer see tokens (tokenizer.go)
	if p.pii != nil {
		p.pii.guard = p.guard // flow decisions on the upstream edge are audited too
	}
	p.tools.chain = composeCalls(p.callChain()) // chain.go
	p.fwd = passthrough.New(passthrough.Options{Config: cfg, Pool: p.pool, Hub: hub{p, p.pii}, Life: p.life,
		Logger: log, Seq: &p.sessions.seq, MaxResult: forwardedResultCap})
	p.pool.SetOAuth(opts.OAuth)
	p.pool.SetCached(opts.CachedTools)
	if opts.StartOnCall {
		p.pool.SetStartOnCall()
	}
	p.catalog.Store(index.New(nil, nil))
	sopts := &mcp.ServerOptions{
		Logger:       log,
		Instructions: instructions,
	}
	p.fwd.ServerOptions(sopts)
	p.server = mcp.NewServer(&mcp.Implementation{Name: "toolfold", Version: version}, sopts)
	p.fwd.SetServer(p.server)
	p.installClientChains() // chain.go
	p.refresh()             // the catalog of what the providers offer before Start
	for _, pr := range p.tools.list {
		pr.Watch(p.refresh)
	}
	return p
}

// newPolicy is the policy of cfg, counting rates in st when there is one
// (shared by replicas over Redis), else in memory.
func newPolicy(cfg *config.Config, st store.Store, log *slog.Logger) *policy.Policy {
	o := &policy.Options{Logger: log.With("component", "policy")}
	if st != nil {
		o.Counter = st
	}
	return policy.New(cfg.Policy, o)
}

// newPins keeps tool pins in st; nil (no pinning) without a store or
// with policy.pin_tools: false.
func newPins(cfg *config.Config, st store.Store) *policy.Pins {
	if st == nil || cfg.Policy.NoPinTools {
		return nil
	}
	return policy.NewPins(st)
}

// forwardedResultCap bounds a tool result passed through to a client
// (passthrough.Options.MaxResult); 0: the forwarder's own. Tests lower it.
var forwardedResultCap int

// instructions is sent to clients at initialize: the one-paragraph method.
const instructions = "The tools of several MCP servers are behind this proxy. Find them with search_tools, then call them from a run_script script; only what the script prints or returns comes back."

// Start connects every upstream in the background, and reads the saved
// skills (and reads them again every so often, for those saved elsewhere).
func (p *Proxy) Start(ctx context.Context) {
	p.pool.Start(ctx)
	p.skills.Start(ctx)
}

// WaitReady waits until each upstream's first connection attempt is over,
// and the prompts and resources of those connected are listed.
func (p *Proxy) WaitReady(ctx context.Context) {
	p.pool.WaitReady(ctx)
	p.fwd.WaitIdle(ctx)
}

// Shutdown cancels every request in flight (scripts are killed, upstream
// calls abandoned) and makes new ones fail at once. Serving functions then
// return promptly; Close does the rest.
func (p *Proxy) Shutdown() { p.stopLife() }

// Close shuts down and stops the upstreams. It closes the runners that
// keep warm children (sandbox.Warmer), so none outlives the proxy.
func (p *Proxy) Close() {
	p.Shutdown()
	p.workspaces.Wait() // runs answered at done, still ending
	for _, r := range p.runners {
		if w, ok := r.(sandbox.Warmer); ok {
			w.Close()
		}
	}
	p.pool.Close()
	p.learn.Close()
	p.sessions.closeAll()
	p.workspaces.Close()
	p.trees.close()
}

// Server is the client-facing MCP server.
func (p *Proxy) Server() *mcp.Server { return p.server }

// Status reports every upstream.
func (p *Proxy) Status() []UpstreamStatus { return p.pool.Status() }

// Languages lists the run_script languages served.
func (p *Proxy) Languages() []string { return p.langs }

// Index is the current catalog.
func (p *Proxy) Index() *index.Index { return p.catalog.Load() }

// refresh rebuilds the catalog and re-advertises the two tools when a
// provider's tools or state changed (an upstream's, a skill's).
//
// It returns once a rebuild that started after the call has finished, so a
// caller sees its change in the catalog.
func (p *Proxy) refresh() {
	want := p.refreshReq.Add(1)
	p.refreshMu.Lock()
	defer p.refreshMu.Unlock()
	if p.refreshDone >= want {
		return // a rebuild that started after this request already ran
	}
	covered := p.refreshReq.Load()
	servers := p.tools.servers()
	var tools []index.Tool
	for _, s := range servers {
		for _, t := range s.Tools {
			tools = append(tools, indexTool(s.Name, t))
		}
	}
	p.guard.update(p.life, servers)
	infos := serverInfos(servers)
	ix := index.New(tools, infos)
	pii := p.pii.scanCatalog(ix, tools, infos)
	p.catalogPII.Store(pii) // first: a search that sees ix sees its scan
	p.catalog.Store(ix)
	p.treeCatalog(ix, pii) // codetree.go: the servers/ tree, in the background
	p.advertise()
	p.refreshDone = covered
	p.fwd.Refreshed()
}

// serverInfos describes every provider's servers for the catalog.
func serverInfos(servers []ProvidedServer) []index.ServerInfo {
	var out []index.ServerInfo
	for _, s := range servers {
		out = append(out, index.ServerInfo{
			Name:        s.Name,
			Description: s.Description,
			Available:   s.State == StateReady,
			Error:       unavailableReason(s),
		})
	}
	return out
}

func unavailableReason(s ProvidedServer) string {
	switch s.State {
	case StateReady:
		return ""
	case StateDown, StateConnecting:
		if s.Err != "" {
			return s.Err
		}
	}
	return s.State
}

// indexTool converts an MCP tool for the catalog.
func indexTool(server string, t *mcp.Tool) index.Tool {
	it := index.Tool{
		Server:       server,
		Name:         t.Name,
		Title:        t.Title,
		Description:  t.Description,
		InputSchema:  asMap(t.InputSchema),
		OutputSchema: asMap(t.OutputSchema),
	}
	if a := t.Annotations; a != nil {
		if it.Title == "" {
			it.Title = a.Title
		}
		it.Annotations = index.Annotations{
			ReadOnly:    boolp(a.ReadOnlyHint),
			Destructive: a.DestructiveHint,
			Idempotent:  boolp(a.IdempotentHint),
			OpenWorld:   a.OpenWorldHint,
		}
	}
	return it
}

func boolp(b bool) *bool {
	if !b {
		return nil // the SDK cannot tell false from absent for these two
	}
	return &b
}

// asMap is a tool's schema as a map: as the go-sdk client decodes it from
// an upstream, or, from a provider of toolfold's own, JSON or a
// *jsonschema.Schema converted.
func asMap(v any) map[string]any {
	switch s := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return s
	case json.RawMessage:
		return jsonMap(s)
	case []byte:
		return jsonMap(s)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return jsonMap(b)
}

func jsonMap(b []byte) map[string]any {
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// workspaceBound is workspace.Bound; tests of the fallback replace it.
var workspaceBound = workspace.Bound

// forgetWorkspace stops the warm children kept for runs in dir: called
// before a session's workspace is removed or unlocked.
func (p *Proxy) forgetWorkspace(dir string) {
	for _, r := range p.runners {
		if w, ok := r.(sandbox.Warmer); ok {
			w.Forget(dir)
		}
	}
}
