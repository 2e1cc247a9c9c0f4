package proxy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/passthrough"
	"github.com/toolfold/toolfold/skillhost"
)

// The proxy's side of package passthrough, which never imports proxy:
// what the forwarder needs of the proxy passes here. (The upstream pool's
// hooks, poolHooks, are chain.go's.)

// hub is the proxy's passthrough.Hub: its sessions, its providers behind
// the policy, and its tokenizer, whose methods (tokenizer.go, flows.go)
// are the paths toward a client the forwarder takes (passthrough.Tokenizer).
type hub struct {
	p *Proxy
	*piiState
}

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
	if server == skillhost.ServerName {
		ctx = withProgress(ctx, req)
	}
	return h.p.tools.call(ctx, server, params)
}

// UnknownTool rewrites the go-sdk's bare `unknown tool "x"` for a
// client that calls a tool toolfold does not advertise, typically an
// upstream tool by its own name: in code mode (and hybrid, for a tool not
// pinned) it says how to reach the tool. Other errors pass unchanged.
func (h hub) UnknownTool(name string, err error) error {
	p := h.p
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams ||
		!strings.HasPrefix(werr.Message, "unknown tool") || p.cfg.Expose.Mode == config.ExposePassthrough {
		return err
	}
	msg := fmt.Sprintf("unknown tool %q: this server's tools are called from scripts: find one with search_tools, then call it in run_script's code", name)
	if s := p.catalog.Load().Suggest(name, 3); len(s) > 0 {
		msg += " (matching tools: " + strings.Join(s, ", ") + ")"
	}
	return &jsonrpc.Error{Code: werr.Code, Message: msg}
}
