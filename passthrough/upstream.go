package passthrough

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/upstream"
)

// UpstreamHooks are the forwarder's part of the upstream pool's hooks
// (upstream.Hooks, which the owner implements): the handlers that pass an
// upstream's requests and notifications on to client sessions, and their
// entries in the upstream chains (the owner's chain.go places them). The
// Forwarder's serve every client session; Pinned narrows them to one.
type UpstreamHooks interface {
	// ClientOptions advertises to the upstream what clients can do and
	// sets the handlers of what it asks and tells them.
	ClientOptions(up string, o *mcp.ClientOptions)
	// ClientCreated keeps the upstream's client, to tell it of roots changes.
	ClientCreated(up string, c *mcp.Client)
	// Connected is called once the upstream's session is up, before it
	// serves calls (upstream.Hooks.Connected): the hooks send it what
	// clients asked of every upstream, such as their logging level.
	Connected(ctx context.Context, up string, cs *mcp.ClientSession)
	// Tracking is the sending chain's entry: it records which client
	// session each request to up is for, and maps its progress token.
	Tracking(up string) mcp.Middleware
	// Answering is the receiving chain's entry: it answers up's
	// elicitation and roots/list requests with the client session they
	// belong to.
	Answering(up string) mcp.Middleware
}

var _ UpstreamHooks = (*Forwarder)(nil)

// Pinned are the forwarder's hooks for session s's own instances of the
// upstreams (scope: session).
func (f *Forwarder) Pinned(s Session) UpstreamHooks { return pinnedHooks{f, f.hub, s} }

// pinnedHooks are the forwarder's hooks for one session's instance: what
// the instance asks or tells a client (sampling, elicitation, roots, log
// messages) goes to the session that owns it and no other, whatever the
// relay would guess from the upstream's name, which the shared instance
// and every other session's instance also bear. Roots changes are sent to
// the shared instance's client only.
type pinnedHooks struct {
	UpstreamHooks
	hub Hub
	s   Session
}

func (h pinnedHooks) pin(ctx context.Context) context.Context { return h.hub.WithSession(ctx, h.s) }

func (h pinnedHooks) ClientCreated(string, *mcp.Client) {}

func (h pinnedHooks) Connected(ctx context.Context, up string, cs *mcp.ClientSession) {
	h.UpstreamHooks.Connected(h.pin(ctx), up, cs)
}

func (h pinnedHooks) ClientOptions(up string, o *mcp.ClientOptions) {
	h.UpstreamHooks.ClientOptions(up, o)
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

func (h pinnedHooks) Answering(up string) mcp.Middleware {
	inner := h.UpstreamHooks.Answering(up)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		wrapped := inner(next)
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			return wrapped(h.pin(ctx), method, req)
		}
	}
}

// errNoClient is returned to an upstream whose request no client session
// can answer.
func errNoClient(method string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("toolfold has no connected client session to pass %s to; retry once a client is connected", method)}
}

// ClientOptions advertises to the upstream what clients of toolfold can
// do — sampling, elicitation and roots — and passes every such request,
// and the upstream's notifications, to the client session that caused them
// (see relay.go). A client that lacks the capability answers with an error,
// which goes back to the upstream.
func (f *Forwarder) ClientOptions(up string, o *mcp.ClientOptions) {
	r := f.relay
	o.Capabilities = &mcp.ClientCapabilities{
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
		Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
	}
	o.CreateMessageWithToolsHandler = func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
		s, reqCtx := r.target(ctx, up)
		if s == nil {
			return nil, errNoClient("sampling/createMessage")
		}
		sctx, done := f.sendCtx(ctx, s, reqCtx, 0)
		defer done()
		res, err := s.ServerSession().CreateMessageWithTools(sctx, f.hub.SamplingRequest(s, up, req.Params))
		f.hub.SamplingBack(s, up, res)
		return res, err
	}
	o.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return f.elicit(ctx, up, req.Params)
	}
	o.ElicitationCompleteHandler = func(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
		if s, reqCtx := r.target(ctx, up); s != nil {
			sctx, done := f.sendCtx(ctx, s, reqCtx, NotifyTimeout)
			defer done()
			_ = s.ServerSession().NotifyElicitationComplete(sctx, req.Params)
		}
	}
	o.LoggingMessageHandler = func(ctx context.Context, req *mcp.LoggingMessageRequest) {
		for _, fl := range r.audience(ctx, up) {
			sctx, done := f.sendCtx(ctx, fl.s, fl.ctx, NotifyTimeout)
			_ = fl.s.ServerSession().Log(sctx, f.hub.LogMessage(fl.s, up, req.Params)) // filtered by the session's own level
			done()
		}
	}
	o.ProgressNotificationHandler = func(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
		pr, ok := r.progressFor(req.Params.ProgressToken)
		if !ok {
			return // a token toolfold did not send: nobody to tell
		}
		p := *req.Params
		p.ProgressToken = pr.token
		f.hub.ProgressMessage(pr.session, up, &p)
		sctx, done := f.sendCtx(ctx, pr.session, pr.ctx, NotifyTimeout)
		defer done()
		_ = pr.session.ServerSession().NotifyProgress(sctx, &p)
	}
	o.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { f.mirror.kick(up) }
	o.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { f.mirror.kick(up) }
	o.ResourceUpdatedHandler = func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		f.resourceUpdated(ctx, up, req.Params)
	}
}

// ClientCreated keeps the upstream's client, to notify it of roots
// changes.
func (f *Forwarder) ClientCreated(up string, c *mcp.Client) {
	f.mu.Lock()
	f.clients[up] = c
	f.mu.Unlock()
}

// Connected sets a (re)connected upstream to the logging level the client
// sessions asked for: without it an upstream started, or restarted, after
// logging/setLevel would send no log messages (a pre-2026-07-28 server
// sends none until a level is set). A session's own instance (scope:
// session, pinnedHooks) gets its session's level.
func (f *Forwarder) Connected(ctx context.Context, up string, cs *mcp.ClientSession) {
	l := f.currentLevel()
	if s := f.hub.SessionOf(ctx); s != nil {
		l = s.LogLevel()
	}
	f.sendLevel(ctx, up, cs, l)
}

// Tracking records which client session each request to up is for, and
// maps its progress token (relay.go).
func (f *Forwarder) Tracking(up string) mcp.Middleware {
	return f.relay.trackMiddleware(up)
}

// Answering answers up's elicitation and roots/list requests with the
// client session they belong to.
func (f *Forwarder) Answering(up string) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "elicitation/create" {
				// Before the SDK's own checks of the requested schema,
				// which refuse schemas newer than it knows: toolfold
				// passes the request on as it is, for the client to judge.
				if r, ok := req.(*mcp.ElicitRequest); ok && r.Params != nil {
					return f.elicit(ctx, up, r.Params)
				}
			}
			if method != "roots/list" {
				return next(ctx, method, req)
			}
			s, reqCtx := f.relay.target(ctx, up)
			if s == nil {
				return nil, errNoClient("roots/list")
			}
			ctx, done := f.sendCtx(ctx, s, reqCtx, rootsTimeout)
			defer done()
			// The SDK cannot tell "roots":{} from no roots capability
			// on the server side, so ask: a client without roots answers
			// with an error, which goes back to the upstream.
			res, err := s.ServerSession().ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			return res, nil
		}
	}
}

// notifyRootsChanged tells every upstream that the client's roots changed,
// so that those that use roots ask for them again (through roots/list
// above). The go-sdk client sends notifications/roots/list_changed when its
// own root list changes; toolfold answers roots/list itself, so touching a
// placeholder root is only the way to send the notification.
func (f *Forwarder) notifyRootsChanged() {
	f.mu.Lock()
	clients := make([]*mcp.Client, 0, len(f.clients))
	for _, c := range f.clients {
		clients = append(clients, c)
	}
	f.mu.Unlock()
	for _, c := range clients {
		c.AddRoots(&mcp.Root{URI: "toolfold://roots", Name: "placeholder; toolfold answers roots/list from the client"})
	}
}

// isUnavailable reports an upstream that is not connected.
func isUnavailable(err error) bool {
	var ue *upstream.UnavailableError
	return errors.As(err, &ue)
}

// asWire finds a JSON-RPC error from the upstream in err's chain.
func asWire(err error, target **jsonrpc.Error) bool { return errors.As(err, target) }

// elicit passes an upstream's elicitation/create to its client session and
// the answer back unchanged. ServerSession.Elicit checks the answer against
// the requested schema with the SDK's notion of elicitation schemas; when
// that check, not the client, refuses, the client's answer (captured by
// RawCapture on the way in) is what the upstream gets: judging it is the
// upstream's business.
func (f *Forwarder) elicit(ctx context.Context, up string, params *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	s, reqCtx := f.relay.target(ctx, up)
	if s == nil {
		return nil, errNoClient("elicitation/create")
	}
	sctx, done := f.sendCtx(ctx, s, reqCtx, 0)
	defer done()
	slot := &rawResult{}
	res, err := s.ServerSession().Elicit(context.WithValue(sctx, rawKey{}, slot), f.hub.ElicitRequest(s, up, params))
	if err != nil {
		if raw, ok := slot.get().(*mcp.ElicitResult); ok {
			f.hub.ElicitBack(s, up, raw)
			return raw, nil
		}
		return nil, err
	}
	f.hub.ElicitBack(s, up, res)
	return res, nil
}

// rawResult holds the result of a request toolfold sent to a client, as it
// arrived, before the SDK's checks.
type rawResult struct {
	mu  sync.Mutex
	res mcp.Result
}

func (r *rawResult) get() mcp.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.res
}

type rawKey struct{}

// RawCapture is a sending middleware of the client-facing server: it
// stores each result in the rawResult its context carries, if any.
func RawCapture() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if slot, ok := ctx.Value(rawKey{}).(*rawResult); ok && err == nil {
				slot.mu.Lock()
				slot.res = res
				slot.mu.Unlock()
			}
			return res, err
		}
	}
}

// Bounds on what toolfold sends a client for an upstream. Sampling and
// elicitation wait for a person, so they have none of their own.
const (
	NotifyTimeout = 10 * time.Second // one notification
	rootsTimeout  = 30 * time.Second // roots/list, which clients answer without asking anyone
)

// sendCtx is relay's sendCtx, also ended by the end of the client session
// or the owner's shutdown (the session's context, which the owner's life
// ends too), and after timeout (0: none): a client that never answers
// must not hold the upstream's connection (whose Close waits for its
// handlers) or the owner's shutdown.
func (f *Forwarder) sendCtx(handler context.Context, s Session, reqCtx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, done := sendCtx(handler, reqCtx)
	ctx, cancel := context.WithCancel(ctx)
	stopSess := context.AfterFunc(s.Context(), cancel)
	var cancelT context.CancelFunc = func() {}
	if timeout > 0 {
		ctx, cancelT = context.WithTimeout(ctx, timeout)
	}
	return ctx, func() {
		cancelT()
		stopSess()
		cancel()
		done()
	}
}
