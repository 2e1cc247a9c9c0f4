package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/passthrough"
	"github.com/toolfold/toolfold/upstream"
)

// The middleware chains, declared once: this file is the only place that
// registers middleware (TestMiddlewareOnlyInChain fails on any other). The
// go-sdk wraps each later registration outside the earlier ones, so a
// registration elsewhere would silently reorder a chain; once it let
// resources/read skip the PII vault. Each chain is registered in one call,
// and in each list the first entry runs first (outermost).

// installClientChains registers the middleware of the client edge: what
// wraps each request a client sends toolfold, and each request toolfold
// sends a client.
func (p *Proxy) installClientChains() {
	p.server.AddReceivingMiddleware(probed("client", p.clientChain())...)
	p.server.AddSendingMiddleware(
		// RawCapture keeps a client's answer to a request toolfold
		// passed on (elicitation) as it arrived, before the SDK's own
		// checks of it, so the upstream that asked can judge it.
		passthrough.RawCapture(),
	)
}

// clientChain wraps every request the client sends to toolfold.
func (p *Proxy) clientChain() []namedMiddleware {
	return []namedMiddleware{
		// recover is outermost so a panic anywhere below, in a handler or
		// another middleware, becomes an internal error for that one
		// request instead of killing every session (the SDK does not
		// recover handler panics).
		{"recover", recoverMiddleware(p.log)},
		// trace opens the SERVER span, continuing the client's trace from
		// params._meta, before anything else runs, so that every span
		// below (the script, its upstream calls) is its child and the
		// duration covers the whole request. Inside recover: a panic
		// below still ends the span (marked failed) on its way up.
		{"trace", p.tel.ServerMiddleware()},
		// log sits inside trace so that its context carries the span. A
		// panic passes it unlogged; recover, outside, logs it with its
		// stack.
		{"log", logMiddleware(p.log.With("edge", "client"))},
		// session finds the client's Session (session.go) and puts it and
		// its PII vault in the context, and ties the context to the
		// session's life and the proxy's: shutdown, or a session that
		// ends (an HTTP DELETE, a dropped connection, the idle timeout),
		// cancels a running script or upstream request instead of
		// waiting for it (the SDK waits for in-flight handlers, and does
		// not cancel them). Everything below needs the session.
		{"session", sessionMiddleware(p.sessions, p.pii)},
		// pii tokenizes, with the session's vault, the lists the SDK
		// serves from toolfold's own registry (resources, templates,
		// prompts mirrored from upstreams): they were listed upstream
		// with no client session, hence no vault, in reach. Everything
		// else an upstream answers is tokenized on the upstream edge.
		{"pii", listsMiddleware(p.resourceOwner)},
		// forward is innermost: it answers resources/read and
		// logging/setLevel itself (package passthrough), with the session and the
		// vault already in its context, so an upstream's resource passes
		// the rewrite on the upstream edge like a tool result.
		{"forward", p.fwd.Middleware()},
	}
}

// newPool makes the upstream pool (package upstream), handing it the
// upstream edge's chains below through its hooks (poolHooks, whose
// Chains the pool registers on each upstream's client as listed here).
func (p *Proxy) newPool() *upstream.Pool {
	return upstream.New(p.cfg.Upstreams, &upstream.Options{
		Logger: p.log, Version: p.version, Hooks: poolHooks{p: p},
		Scrub: p.pii.redactFunc(), MinBackoff: reconnectBackoff,
	})
}

// poolHooks are the proxy's upstream.Hooks: the chains of chain.go and
// the forwarder's handlers, for every client session (s nil) or pinned to
// one session's own instances (s).
type poolHooks struct {
	p *Proxy
	s *Session
}

var _ upstream.Hooks = poolHooks{}

// fwd is the forwarder's hooks, pinned to h.s if set. The forwarder is
// made after the pool, and hooks are first called once the pool starts.
func (h poolHooks) fwd() passthrough.UpstreamHooks {
	if h.s != nil {
		return h.p.fwd.Pinned(h.s)
	}
	return h.p.fwd
}

func (h poolHooks) ClientOptions(up string, o *mcp.ClientOptions) { h.fwd().ClientOptions(up, o) }

func (h poolHooks) ClientCreated(up string, c *mcp.Client) { h.fwd().ClientCreated(up, c) }

func (h poolHooks) Connected(ctx context.Context, up string, cs *mcp.ClientSession) {
	h.fwd().Connected(ctx, up, cs)
}

// SessionOf is the client session of ctx (sessionOf), nil outside one.
func (h poolHooks) SessionOf(ctx context.Context) upstream.Session {
	if s := sessionOf(ctx); s != nil {
		return s
	}
	return nil
}

// ForSession pins the hooks to s, a *Session (SessionOf).
func (h poolHooks) ForSession(s upstream.Session) upstream.Hooks {
	return poolHooks{p: h.p, s: own(s)}
}

// reconnectBackoff is the upstreams' first wait before reconnecting; 0:
// the pool's own. Tests shorten it.
var reconnectBackoff time.Duration

// Chains lists the middleware of the edge toward the upstream e.Upstream
// on one connection's client: what wraps each request toolfold sends the
// upstream, and each request or notification the upstream sends toolfold.
func (h poolHooks) Chains(e upstream.Edge) (sending, receiving []mcp.Middleware) {
	return probed("upstream", h.upstreamChain(e)), probed("upstream-in", h.upstreamInChain(e))
}

// upstreamChain wraps every request toolfold sends to the upstream.
func (h poolHooks) upstreamChain(e upstream.Edge) []namedMiddleware {
	return []namedMiddleware{
		// track is outermost: it records which client session each
		// request is for, for the whole time the request and the
		// notifications it causes are handled, and maps its progress
		// token (package passthrough's relay.go).
		{"track", h.fwd().Tracking(e.Upstream.Name)},
		// order waits, after each request, until the notifications the
		// upstream sent before its result have been relayed (package
		// upstream's order.go), so a call's last log message still finds
		// its session (track).
		{"order", e.OrderSending},
		// trace's CLIENT span (a child of the script's span when a
		// script called) times the request as the caller waits for it,
		// including the probe timeout below, and replaces any trace
		// context in params._meta with its own, so no client's values
		// are forwarded upstream.
		{"trace", h.p.tel.ClientMiddleware(e.Upstream)},
		// log sits inside trace, so its context carries the span.
		{"log", logMiddleware(e.Log.With("edge", "upstream"))},
		// discover bounds the go-sdk's 2026-07-28 server/discover probe
		// (upstream.Edge.Discover): a legacy server that silently drops
		// requests before initialize would otherwise stall the
		// connection until connect_timeout.
		{"discover", e.Discover},
		// rewrite is innermost: it restores PII tokens in what goes to the
		// upstream and tokenizes what comes back (rewrite.go), so logs and
		// traces above only ever see tokens.
		{"rewrite", rewriteMiddleware(e.Upstream.Name)},
	}
}

// upstreamInChain wraps every request and notification the upstream sends
// toolfold.
func (h poolHooks) upstreamInChain(e upstream.Edge) []namedMiddleware {
	return []namedMiddleware{
		// order counts handled notifications, once the relay below has
		// passed them on (package upstream's order.go).
		{"order", e.OrderReceiving},
		// relay answers, before the SDK's own handlers, the requests only
		// a client session can: elicitation (as it is, before the SDK's
		// schema checks) and roots/list (package passthrough).
		{"relay", h.fwd().Answering(e.Upstream.Name)},
	}
}

// callChain wraps every call of a provider's tool (an upstream's, a
// skill's), whichever path made it: a script's call, a skill a script
// calls, a passthrough or hybrid tools/call (providers.through). It runs
// before the upstream edge (upstreamChain), so the arguments it sees are
// the model's, tokens not yet restored by rewrite. It is not an
// upstreamChain entry because a skill's call never reaches an upstream
// edge, and because an approval may wait for a person far longer than an
// upstream request may take (call_timeout).
func (p *Proxy) callChain() []namedCall {
	return []namedCall{
		// policy decides each call (deny, rate, ask the person), makes it
		// when allowed, and writes its audit line, refused calls
		// included (policy.go). A call refused here must not be traced
		// or counted as made.
		{"policy", p.guard.middleware()},
		// flows decides, once the call itself is allowed, each PII token
		// its arguments hold: may the value go from the tool that minted
		// it to this one (pii.flows; flows.go)? It asks the person here,
		// not on the upstream edge, for the same reason as policy; the
		// edge restores only what it allowed. A refusal passes policy on
		// its way out, so the call's audit line records it.
		{"flows", p.guard.flowsMiddleware()},
	}
}

// ownChain wraps every call of a tool of one of toolfold's own providers
// (the skills, Options.Providers), as upstreamChain wraps the pool's: the
// provider's edge, where the call leaves toolfold for the tool itself.
// providers.dispatch hands every provider its calls alike; each provider's
// edge traces them and tokenizes its answers.
func (p *Proxy) ownChain(provider string) []namedOwn {
	return []namedOwn{
		// trace opens the call's INTERNAL span and counts it
		// (toolfold.provider.tool_calls), as the upstream edge's trace
		// does for an upstream's call.
		{"trace", p.traceOwn(provider)},
		// pii is innermost, as rewrite is on the upstream edge: the
		// tokenizer (tokenizer.go) replaces personal data in the result
		// before anything above it sees the result.
		{"pii", p.ownAnswers()},
	}
}

// ownCallFunc calls a tool of one of toolfold's own providers;
// ownMiddleware wraps one.
type (
	ownCallFunc   func(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
	ownMiddleware func(next ownCallFunc) ownCallFunc
)

// namedOwn is an ownChain entry.
type namedOwn struct {
	name string
	mw   ownMiddleware
}

// composeOwn joins an ownChain into one wrapper, the first entry
// outermost, each reporting to chainProbe (edge "own") when a test set it.
func composeOwn(chain []namedOwn) ownMiddleware {
	return func(final ownCallFunc) ownCallFunc {
		h := final
		for i := len(chain) - 1; i >= 0; i-- {
			e := chain[i]
			inner := e.mw(h)
			h = func(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
				if probe := chainProbe; probe != nil {
					probe("own", e.name, "tools/call")
				}
				return inner(ctx, server, params)
			}
		}
		return h
	}
}

// ownAnswers is ownChain's pii entry: the result of a tool of toolfold's
// own provider, or its error, tokenized by the tokenizer (piiState.answer,
// tokenizer.go) as an upstream's is on the upstream edge.
func (p *Proxy) ownAnswers() ownMiddleware {
	return func(next ownCallFunc) ownCallFunc {
		return func(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			res, err := next(ctx, server, params)
			if err := p.pii.answer(ctx, server, server+"."+params.Name, res, err); err != nil {
				return nil, err
			}
			return res, nil
		}
	}
}

// traceOwn is ownChain's trace entry (telemetry.TraceProviderCall).
func (p *Proxy) traceOwn(provider string) ownMiddleware {
	return func(next ownCallFunc) ownCallFunc {
		return func(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
			return p.tel.TraceProviderCall(ctx, provider, server, params.Name, func(ctx context.Context) (*mcp.CallToolResult, error) {
				return next(ctx, server, params)
			})
		}
	}
}

// toolCall is one call of a provider's tool, as callChain sees it.
type toolCall struct {
	Name string          // qualified: server.tool, skills.NAME
	Args json.RawMessage // as the script or the client gave them
}

// callResult is what callChain learns of a call that was made.
type callResult struct {
	Bytes   int  // the result's size
	IsError bool // the tool reported a failure
}

// callFunc makes a call; callMiddleware wraps one.
type (
	callFunc       func(ctx context.Context, c toolCall) (callResult, error)
	callMiddleware func(next callFunc) callFunc
)

// namedCall is a callChain entry.
type namedCall struct {
	name string
	mw   callMiddleware
}

// composeCalls joins a call chain into one wrapper, the first entry
// outermost, each reporting to chainProbe (edge "call") when a test set it.
func composeCalls(chain []namedCall) callMiddleware {
	return func(final callFunc) callFunc {
		h := final
		for i := len(chain) - 1; i >= 0; i-- {
			e := chain[i]
			inner := e.mw(h)
			h = func(ctx context.Context, c toolCall) (callResult, error) {
				if probe := chainProbe; probe != nil {
					probe("call", e.name, "tools/call")
				}
				return inner(ctx, c)
			}
		}
		return h
	}
}

// namedMiddleware is a chain entry with the name tests and probes know it by.
type namedMiddleware struct {
	name string
	mw   mcp.Middleware
}

// chainProbe, when set (by tests only), is told each chain entry a
// request passes, so a test can check the order a request meets them in.
var chainProbe func(edge, name, method string)

// probed unwraps a chain for registration, each entry reporting to
// chainProbe when a test set it.
func probed(edge string, chain []namedMiddleware) []mcp.Middleware {
	out := make([]mcp.Middleware, 0, len(chain))
	for _, e := range chain {
		if e.mw == nil {
			continue
		}
		if probe := chainProbe; probe != nil {
			name, mw := e.name, e.mw
			out = append(out, func(next mcp.MethodHandler) mcp.MethodHandler {
				inner := mw(next)
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					probe(edge, name, method)
					return inner(ctx, method, req)
				}
			})
			continue
		}
		out = append(out, e.mw)
	}
	return out
}

func recoverMiddleware(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("panic in handler", "method", method, "panic", r, "stack", string(debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("toolfold internal error in %s (logged); please report it", method)}
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// logMiddleware logs each request at debug level, and failures at warn.
// It logs methods, durations and errors, never arguments or results.
func logMiddleware(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			start := time.Now()
			res, err := next(ctx, method, req)
			if err != nil && ctx.Err() == nil && !expectedFailure(method, err) {
				log.Warn("request failed", "method", method, "took", time.Since(start).Round(time.Microsecond), "err", err)
			} else if log.Enabled(ctx, slog.LevelDebug) { // no boxing of the arguments when off
				if err != nil {
					log.Debug("request failed, as expected", "method", method, "took", time.Since(start).Round(time.Microsecond), "err", err)
				} else {
					log.Debug("request", "method", method, "took", time.Since(start).Round(time.Microsecond))
				}
			}
			return res, err
		}
	}
}

// expectedFailure reports errors that are part of normal operation: the
// go-sdk client probes every upstream with the 2026-07-28 server/discover
// and falls back to initialize on any failure, whether an older server
// answers method-not-found, times out, or (over HTTP) a plain 400 or 404.
func expectedFailure(method string, err error) bool {
	return method == "server/discover" && err != nil
}
