package upstream

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

// Hooks are how the pool calls back into its owner (the proxy), which
// implements them: the middleware on each upstream's client (telemetry,
// tokenizing, logging), the handlers that pass what an upstream asks or
// tells a client on to a client session, and the client session a call is
// made for. The pool knows nothing of clients or tokens beyond them.
//
// Methods are called from the upstreams' supervisors and the SDK's
// handlers, concurrently.
type Hooks interface {
	// Chains lists the middleware of one connection's client: sending
	// wraps each request toolfold sends the upstream, receiving each
	// request or notification the upstream sends toolfold; in each list
	// the first entry runs first (outermost). The pool registers the two
	// lists as given (installChains), nothing else.
	Chains(e Edge) (sending, receiving []mcp.Middleware)
	// ClientOptions sets, before the client is made, its capabilities and
	// its handlers of the upstream's requests (sampling, elicitation) and
	// notifications (log, progress, list changes).
	ClientOptions(up string, o *mcp.ClientOptions)
	// ClientCreated is given the upstream's new client, before it
	// connects, to tell it of roots changes later.
	ClientCreated(up string, c *mcp.Client)
	// Connected is called once the upstream's session is up, before it
	// serves calls: the owner sends it what clients asked of every
	// upstream, such as their logging level.
	Connected(ctx context.Context, up string, cs *mcp.ClientSession)
	// SessionOf is the client session ctx was made for, nil outside one.
	SessionOf(ctx context.Context) Session
	// ForSession are the hooks of s's own instance of an upstream
	// (scope.go): what that instance asks or tells a client goes to s and
	// no other session.
	ForSession(s Session) Hooks
}

// Session is a client session as the pool sees it: scope: session
// upstreams run one instance per Session, which ends with its context or
// EndSession, whichever comes first. Values must be comparable.
type Session interface {
	// Context ends when the session does.
	Context() context.Context
	// LogTag names the session in logs, never by its id.
	LogTag() string
}

// Edge is one connection to an upstream, as Hooks.Chains sees it.
type Edge struct {
	Upstream config.Upstream
	Log      *slog.Logger // the upstream's
	// OrderSending and OrderReceiving keep the upstream's log and progress
	// notifications ahead of the result they precede (order.go).
	// OrderSending waits, after each request, for the notifications that
	// came before its result: it belongs inside whatever forgets the
	// request when it returns. OrderReceiving counts handled
	// notifications: it belongs outermost in the receiving chain.
	OrderSending, OrderReceiving mcp.Middleware
	// Discover bounds the go-sdk's 2026-07-28 server/discover probe by
	// discoverTimeout: a legacy server that silently drops requests
	// before initialize would otherwise stall the connection until
	// connect_timeout. On timeout the SDK falls back to initialize.
	Discover mcp.Middleware
}

// installChains registers on c the chains the hooks list for this
// connection, each in one call: the only place the package registers
// middleware (the proxy's TestMiddlewareOnlyInChain checks it). Without
// hooks the client gets the one entry no connection does without: the
// bound on the server/discover probe.
func (u *upstream) installChains(c *mcp.Client, order *noteOrder) {
	e := Edge{Upstream: u.cfg, Log: u.log, OrderSending: order.sending, OrderReceiving: order.receiving, Discover: u.discover.middleware(u.cfg.ConnectTimeout)}
	sending, receiving := []mcp.Middleware{e.Discover}, []mcp.Middleware(nil)
	if u.hooks != nil {
		sending, receiving = u.hooks.Chains(e)
	}
	c.AddSendingMiddleware(sending...)
	c.AddReceivingMiddleware(receiving...)
}
