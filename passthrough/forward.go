package passthrough

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/upstream"
)

// Forwarder makes toolfold transparent for everything but tools: prompts,
// resources (read, templates, subscriptions), completion, logging,
// progress, cancellation, and the upstreams' requests to the client
// (sampling, elicitation, roots). Names are mapped by the mirror
// (mirror.go, names.go); messages from upstreams are routed to client
// sessions by the relay (relay.go).
//
// Cancellation needs no code of its own: a client's notifications/cancelled
// cancels the handler's context, the go-sdk client then sends
// notifications/cancelled upstream; an upstream's cancellation of its own
// request cancels the context toolfold's client handler runs with, which
// the server side passes on to the client the same way. Ping is answered
// by the SDK on each side.
type Forwarder struct {
	cfg       *config.Config
	pool      *upstream.Pool
	hub       Hub
	life      context.Context
	log       *slog.Logger
	maxResult int         // Options.MaxResult
	server    *mcp.Server // SetServer
	relay     *relay
	mirror    *mirror

	mu      sync.Mutex
	clients map[string]*mcp.Client  // upstream -> its current client, for roots notifications
	subs    map[named]*subscription // upstream subscriptions, shared by the client sessions
}

// subscription is one upstream resource subscription.
type subscription struct {
	count   int    // client subscriptions through toolfold
	exposed string // the URI clients used, for notifications/resources/updated
}

// New makes the forwarder of o's upstreams; SetServer gives it the
// client-facing server before it serves.
func New(o Options) *Forwarder {
	f := &Forwarder{cfg: o.Config, pool: o.Pool, hub: o.Hub, life: o.Life, log: o.Logger, maxResult: o.MaxResult,
		clients: map[string]*mcp.Client{}, subs: map[named]*subscription{}}
	if f.life == nil {
		f.life = context.Background()
	}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if f.maxResult <= 0 {
		f.maxResult = maxForwardedResult
	}
	seq := o.Seq
	if seq == nil {
		seq = new(atomic.Uint64)
	}
	f.relay = newRelay(o.Hub, seq, f.log.With("component", "relay"))
	f.mirror = newMirror(f)
	return f
}

// SetServer gives the forwarder the client-facing server it registers the
// mirrored prompts, resources and tools on (mirror.go), once, after
// ServerOptions and before the server serves.
func (f *Forwarder) SetServer(s *mcp.Server) { f.server = s }

// ServerOptions declares what toolfold serves clients. The capabilities
// are fixed at initialize, before every upstream has connected, so they
// are all declared: with no upstream offering prompts the list is empty.
func (f *Forwarder) ServerOptions(o *mcp.ServerOptions) {
	o.Capabilities = &mcp.ServerCapabilities{
		Logging:     &mcp.LoggingCapabilities{},
		Tools:       &mcp.ToolCapabilities{ListChanged: true},
		Prompts:     &mcp.PromptCapabilities{ListChanged: true},
		Resources:   &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
		Completions: &mcp.CompletionCapabilities{},
	}
	o.SubscribeHandler = f.subscribe
	o.UnsubscribeHandler = f.unsubscribe
	o.CompletionHandler = f.complete
	o.RootsListChangedHandler = func(context.Context, *mcp.RootsListChangedRequest) { f.notifyRootsChanged() }
	o.InitializedHandler = func(_ context.Context, req *mcp.InitializedRequest) {
		// A client that declares roots brings them to the upstreams.
		if ip := req.Session.InitializeParams(); ip != nil && ip.Capabilities != nil && ip.Capabilities.Roots.ListChanged {
			f.notifyRootsChanged()
		}
	}
}

// Middleware is the innermost client-facing middleware: it serves the
// methods the SDK's own handlers cannot: resources/read of any URI an
// upstream serves, not only listed ones, and logging/setLevel, which also
// reaches upstreams.
func (f *Forwarder) Middleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch method {
			case "prompts/list", "prompts/get", "resources/list", "resources/templates/list",
				"resources/read", "completion/complete":
				// Upstreams searched from the catalog cache while they
				// connect (upstream.Pool.SetCached) have listed no
				// prompts or resources yet: these wait for them, as
				// serve's start waits for the others.
				f.pool.WaitCached(ctx)
				f.mirror.waitIdle(ctx)
			}
			switch method {
			case "resources/read":
				if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil {
					return f.read(ctx, r)
				}
			case "tools/call":
				res, err := next(ctx, method, req)
				if r, ok := req.(*mcp.CallToolRequest); ok && err != nil && r.Params != nil {
					err = f.hub.UnknownTool(r.Params.Name, err)
				}
				return res, err
			case "logging/setLevel":
				res, err := next(ctx, method, req)
				if r, ok := req.(*mcp.ServerRequest[*mcp.SetLoggingLevelParams]); ok && err == nil && r.Params != nil {
					if s := f.hub.SessionOf(ctx); s != nil {
						f.setLevel(ctx, s, r.Params.Level)
					}
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}

// timeout is the limit on one forwarded request to up: call_timeout for
// calls and reads, connect_timeout for listings.
func (f *Forwarder) timeout(up string, call bool) time.Duration {
	for _, u := range f.cfg.Upstreams {
		if u.Name == up {
			if call {
				return u.CallTimeout
			}
			return u.ConnectTimeout
		}
	}
	return 2 * time.Minute
}

// upstreamErr turns a failed forwarded request into what the client gets.
func (f *Forwarder) upstreamErr(ctx, cctx context.Context, up, what string, err error) error {
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case cctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("upstream %q did not answer %s within %s (call_timeout)", up, what, f.timeout(up, true))
	case isUnavailable(err):
		return err
	case upstream.Disconnected(err):
		return &upstream.UnavailableError{Server: up, Reason: "disconnected during the request"}
	}
	return err // a JSON-RPC error from the upstream passes through as it is
}

// getPrompt forwards prompts/get for one upstream prompt.
func (f *Forwarder) getPrompt(it named) mcp.PromptHandler {
	return func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		cs, err := f.pool.Session(it.up)
		if err != nil {
			return nil, err
		}
		params := *req.Params
		params.Name = it.orig
		params.Meta = f.outMeta(ctx, params.Meta)
		cctx, cancel := context.WithTimeout(ctx, f.timeout(it.up, true))
		defer cancel()
		res, err := cs.GetPrompt(cctx, &params)
		if err != nil {
			return nil, f.upstreamErr(ctx, cctx, it.up, "prompts/get "+it.orig, err)
		}
		res.Meta = resultMeta(res.Meta)
		return res, nil
	}
}

// callTool forwards tools/call for one provider's tool (expose: passthrough
// or hybrid) to its provider. Failures are tool errors with the same messages scripts get.
func (f *Forwarder) callTool(it named) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Asking: a call the policy asks about waits for the person
		// (the owner's approvals).
		return f.hub.Asking(ctx, req, func(ctx context.Context) (*mcp.CallToolResult, error) {
			return f.forwardCall(ctx, it, req)
		})
	}
}

// forwardCall makes one passthrough or hybrid call.
func (f *Forwarder) forwardCall(ctx context.Context, it named, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	params := &mcp.CallToolParams{Meta: f.outMeta(ctx, req.Params.Meta), Name: it.orig, Arguments: req.Params.Arguments}
	res, err := f.hub.CallTool(ctx, req, it.up, params)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var werr *jsonrpc.Error
		if asWire(err, &werr) {
			return nil, werr
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	res.Meta = resultMeta(res.Meta)
	return boundResult(res, f.maxResult), nil
}

// complete forwards completion/complete to the owner of the prompt or
// resource template it is about.
func (f *Forwarder) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref := req.Params.Ref
	var it named
	var ok bool
	switch ref.Type {
	case "ref/prompt":
		it, ok = f.mirror.owner("prompt", ref.Name)
	case "ref/resource":
		if it, ok = f.mirror.owner("template", ref.URI); !ok {
			var err error
			if it, err = f.route(ref.URI); err == nil {
				ok = true
			}
		}
	}
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("completion/complete: no upstream offers %s %q", ref.Type, ref.Name+ref.URI)}
	}
	cs, err := f.pool.Session(it.up)
	if err != nil {
		return nil, err
	}
	params := *req.Params
	params.Meta = f.outMeta(ctx, params.Meta)
	r := *ref
	if r.Type == "ref/prompt" {
		r.Name = it.orig
	} else {
		r.URI = it.orig
	}
	params.Ref = &r
	cctx, cancel := context.WithTimeout(ctx, f.timeout(it.up, true))
	defer cancel()
	res, err := cs.Complete(cctx, &params)
	if err != nil {
		return nil, f.upstreamErr(ctx, cctx, it.up, "completion/complete", err)
	}
	res.Meta = resultMeta(res.Meta)
	return res, nil
}

// sessionStarted restores on a new upstream session what clients set up
// through the old one: the logging level and the resource subscriptions.
func (f *Forwarder) sessionStarted(ctx context.Context, up string, cs *mcp.ClientSession) {
	f.sendLevel(ctx, up, cs, f.currentLevel())
	f.mu.Lock()
	var uris []string
	for it := range f.subs {
		if it.up == up {
			uris = append(uris, it.orig)
		}
	}
	f.mu.Unlock()
	for _, u := range uris {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: u}); err != nil {
			f.log.Warn("re-subscribing after a reconnect failed", "upstream", up, "uri", u, "err", err)
		}
	}
}

// safely runs a registration that the SDK may refuse by panicking (an
// upstream's invalid URI, template or schema): the item is skipped and
// logged, the rest go on.
func safely(log *slog.Logger, what string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			log.Warn("an upstream's item is invalid and not offered to clients", "item", what, "err", r, "stack", string(debug.Stack()))
		}
	}()
	fn()
}

// Refreshed follows a pool change: upstream tools (passthrough, hybrid)
// are re-registered now, and upstreams with a new session re-listed.
func (f *Forwarder) Refreshed() {
	f.mirror.mu.Lock()
	always := f.cfg.Expose.Namespace == config.NamespaceAlways
	f.mirror.applyTools(f.hub.Servers(), always)
	f.mirror.mu.Unlock()
	f.mirror.sessionChanged()
}
