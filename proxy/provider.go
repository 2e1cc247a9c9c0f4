package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/jsonsize"
)

// A Provider is a source of tools for the catalog: the upstream pool, or
// tools of toolfold's own (saved skills). Search, the script bridge,
// passthrough and hybrid exposure, and telemetry treat every provider's
// tools alike; only the call goes to the provider that owns the tool.
//
// A provider's tools are grouped in servers: a server is one namespace of
// qualified names ("server.tool"), one entry of search_tools' server list,
// and what passthrough names are disambiguated by. Server names are unique
// across providers; a server a provider names after one an earlier
// provider already has is ignored, with a warning.
//
// Methods may be called from any goroutine.
type Provider interface {
	// Name says which provider this is, in logs and telemetry
	// (toolfold.provider): "upstreams", "skills".
	Name() string
	// Servers lists the provider's servers and their tools, in the order
	// search_tools names them. It is called on every catalog rebuild, so
	// it returns a snapshot without blocking on I/O.
	Servers() []ProvidedServer
	// CallTool calls the tool params.Name of one of the provider's
	// servers. An isError result is the tool's failure, which the model
	// sees; an error is a failure to call it (an *UnavailableError for a
	// server that cannot take calls now). ctx carries the client session's
	// PII vault (rewrite.FromContext): arguments hold tokens where the
	// model saw tokens; the result is tokenized on the provider's edge
	// (chain.go), not by the provider.
	CallTool(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
	// Watch is called once, by New, before anything else: the provider
	// calls changed (from any goroutine, without holding its locks)
	// whenever its servers, their state or their tools change; the
	// catalog and the advertised tools are rebuilt before changed returns.
	Watch(changed func())
}

// ProvidedServer is one server of a provider: a namespace of tools.
type ProvidedServer struct {
	Name        string      // the namespace: the tools' qualified names are Name + "." + tool
	Description string      // what its tools are for, in search_tools' server list; "" derives it from tool names
	State       string      // StateReady when its tools can be called; else StateConnecting, StateDown or StateDisabled
	Err         string      // why it is down (StateDown)
	Tools       []*mcp.Tool // with input and output schemas and annotations, as tools/list gives them
}

// providers is the proxy's providers and which one owns each server.
type providers struct {
	log   *slog.Logger
	list  []Provider     // the upstream pool, then toolfold's own behind their edges (ownEdges)
	chain callMiddleware // callChain, composed (chain.go); nil: none

	mu     sync.Mutex
	owner  map[string]Provider // server name -> provider, as of the last servers()
	warned map[string]bool     // collisions already logged
}

func newProviders(log *slog.Logger, list []Provider) *providers {
	return &providers{log: log, list: list, owner: map[string]Provider{}, warned: map[string]bool{}}
}

// servers lists every provider's servers, in provider order, and notes
// which provider owns each. A server name taken by an earlier provider is
// dropped.
func (ps *providers) servers() []ProvidedServer {
	var out []ProvidedServer
	owner := map[string]Provider{}
	for _, pr := range ps.list {
		for _, s := range pr.Servers() {
			if _, dup := owner[s.Name]; dup || s.Name == "" {
				ps.warnCollision(pr, s.Name)
				continue
			}
			owner[s.Name] = pr
			out = append(out, s)
		}
	}
	ps.mu.Lock()
	ps.owner = owner
	ps.mu.Unlock()
	return out
}

func (ps *providers) warnCollision(pr Provider, server string) {
	ps.mu.Lock()
	first := !ps.warned[pr.Name()+"\x00"+server]
	ps.warned[pr.Name()+"\x00"+server] = true
	ps.mu.Unlock()
	if first {
		ps.log.Warn("a provider's server name is taken (or empty); its tools are not offered: rename the upstream in proxy.yaml",
			"provider", pr.Name(), "server", server)
	}
}

// call calls a tool of server on the provider that owns it, through
// callChain (policy and audit). A call the policy refuses is an error, a
// *policy.Refusal.
func (ps *providers) call(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	var res *mcp.CallToolResult
	c := toolCall{Name: server + "." + params.Name, Args: rawArgs(params.Arguments)}
	_, err := ps.through(ctx, c, func(ctx context.Context, _ toolCall) (callResult, error) {
		var err error
		res, err = ps.dispatch(ctx, server, params)
		return summarize(res), err
	})
	return res, err
}

// through makes the call c with do, inside callChain.
func (ps *providers) through(ctx context.Context, c toolCall, do callFunc) (callResult, error) {
	if ps.chain == nil {
		return do(ctx, c)
	}
	return ps.chain(do)(ctx, c)
}

// rawArgs are a call's arguments as JSON.
func rawArgs(args any) json.RawMessage {
	switch a := args.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return a
	}
	b, err := json.Marshal(args)
	if err != nil {
		return nil
	}
	return b
}

// summarize is what the call chain records of a result.
func summarize(res *mcp.CallToolResult) callResult {
	if res == nil {
		return callResult{}
	}
	return callResult{Bytes: jsonsize.Size(res, 1<<30), IsError: res.IsError}
}

// dispatch calls a tool of server on the provider that owns it. Every
// provider's call is traced and its answer tokenized on the provider's own
// edge, the same way for all (chain.go): the pool's on the upstream edge
// (upstreamChain), toolfold's own providers' on theirs (ownChain).
func (ps *providers) dispatch(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	ps.mu.Lock()
	pr, ok := ps.owner[server]
	ps.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no server named %q; search_tools lists the servers", server)
	}
	return pr.CallTool(ctx, server, params)
}

// ownProvider is a provider of toolfold's own behind its edge (ownChain).
type ownProvider struct {
	Provider
	call ownCallFunc
}

// CallTool calls the tool through the provider's edge.
func (o ownProvider) CallTool(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	return o.call(ctx, server, params)
}

// ownEdges puts each of toolfold's own providers in list behind its edge,
// the chain edge gives for the provider's name (Proxy.ownChain).
func ownEdges(list []Provider, edge func(provider string) []namedOwn) []Provider {
	out := make([]Provider, len(list))
	for i, pr := range list {
		out[i] = ownProvider{Provider: pr, call: composeOwn(edge(pr.Name()))(pr.CallTool)}
	}
	return out
}
