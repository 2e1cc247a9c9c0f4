package proxy

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/passthrough"
	"github.com/toolfold/toolfold/upstream"
)

// The proxy's side of the packages it hands work to: poolHooks are the
// upstream pool's hooks (upstream.Hooks), hub the forwarder's
// (passthrough.Hub). Neither package imports proxy; what they need of it
// passes here.

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

// own is the *Session behind a session the pool or the forwarder hands
// back: every one they have came from sessionOf or the registry.
func own(s upstream.Session) *Session {
	x, _ := s.(*Session)
	return x
}

// hub is the proxy's passthrough.Hub: its sessions, its providers behind
// the policy, and its tokenizer's paths toward a client.
type hub struct{ p *Proxy }

var _ passthrough.Hub = hub{}

// SessionOf is the client session of ctx (sessionOf), nil outside one.
func (h hub) SessionOf(ctx context.Context) passthrough.Session {
	if s := sessionOf(ctx); s != nil {
		return s
	}
	return nil
}

func (h hub) WithSession(ctx context.Context, s passthrough.Session) context.Context {
	return withSession(ctx, own(s))
}

func (h hub) Sessions() []passthrough.Session {
	list := h.p.sessions.list()
	out := make([]passthrough.Session, len(list))
	for i, s := range list {
		out[i] = s
	}
	return out
}

func (h hub) Servers() []passthrough.Server {
	servers := h.p.tools.servers()
	out := make([]passthrough.Server, len(servers))
	for i, s := range servers {
		out[i] = passthrough.Server{Name: s.Name, Tools: s.Tools}
	}
	return out
}

// Asking is the proxy's approvals (approval.go).
func (h hub) Asking(ctx context.Context, req *mcp.CallToolRequest, work func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	return h.p.asking(ctx, req, work)
}

// CallTool calls through the providers (callChain's policy first). A
// skill is a run: what it prints reaches the client as it runs, as
// run_script's output does (progress.go).
func (h hub) CallTool(ctx context.Context, req *mcp.CallToolRequest, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if server == skillServer {
		ctx = withProgress(ctx, req)
	}
	return h.p.tools.call(ctx, server, params)
}

func (h hub) UnknownTool(name string, err error) error { return h.p.unknownClientTool(name, err) }

// The tokenizer's paths (tokenizer.go) and the restoring of tokens in a
// client's answers (rewrite_forward.go).

func (h hub) LogMessage(s passthrough.Session, up string, p *mcp.LoggingMessageParams) *mcp.LoggingMessageParams {
	return h.p.pii.logMessage(own(s), up, p)
}

func (h hub) ProgressMessage(s passthrough.Session, up string, p *mcp.ProgressNotificationParams) {
	h.p.pii.progressMessage(own(s), up, p)
}

func (h hub) SamplingRequest(s passthrough.Session, up string, p *mcp.CreateMessageWithToolsParams) *mcp.CreateMessageWithToolsParams {
	return h.p.pii.samplingRequest(own(s), up, p)
}

func (h hub) SamplingBack(s passthrough.Session, up string, res *mcp.CreateMessageWithToolsResult) {
	h.p.pii.samplingBack(own(s), up, res)
}

func (h hub) ElicitRequest(s passthrough.Session, up string, p *mcp.ElicitParams) *mcp.ElicitParams {
	return h.p.pii.elicitRequest(own(s), up, p)
}

func (h hub) ElicitBack(s passthrough.Session, up string, res *mcp.ElicitResult) {
	h.p.pii.elicitBack(own(s), up, res)
}
