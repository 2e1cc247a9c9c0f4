package passthrough

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/upstream"
)

// Options are what the forwarder is given by its owner (the proxy).
type Options struct {
	Config *config.Config  // upstreams (their timeouts) and the expose setting
	Pool   *upstream.Pool  // the upstream sessions it forwards to
	Hub    Hub             // the owner's part: sessions, tools, policy, tokenizer
	Life   context.Context // ends when the owner shuts down; nil: never
	Logger *slog.Logger    // nil: discard
	// Seq orders the requests the relay attributes (relay.go); the
	// owner's session registry stamps each client request with it too
	// (Routes.Seen). Nil: the forwarder's own.
	Seq *atomic.Uint64
	// MaxResult bounds a tool result passed through to a client (bound.go);
	// 0: 4 MiB.
	MaxResult int
}

// Hub is what the forwarder asks of its owner, which implements it: the
// client sessions, the providers' tools and the policy in front of them,
// and the tokenizer's paths for what an upstream sends a client outside a
// client's own request. Methods are called concurrently.
type Hub interface {
	// SessionOf is the client session ctx was made for, nil outside one.
	SessionOf(ctx context.Context) Session
	// WithSession is ctx made for s: what a session's own upstream
	// instance asks or tells goes to s (Forwarder.Pinned).
	WithSession(ctx context.Context, s Session) context.Context
	// Sessions lists every live client session.
	Sessions() []Session

	// Servers lists every provider's servers and their tools, in
	// provider order: what expose: passthrough and hybrid show clients.
	Servers() []Server
	// Asking runs work, a passthrough or hybrid call of a client's
	// request req, under the policy's approvals: a call the policy asks
	// a person about waits for the answer, or is parked.
	Asking(ctx context.Context, req *mcp.CallToolRequest, work func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error)
	// CallTool calls server's tool for the client request req through
	// the policy and the provider that owns server; a refusal is an error.
	CallTool(ctx context.Context, req *mcp.CallToolRequest, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
	// UnknownTool rewrites the SDK's error for a tool clients are not
	// offered into one that says how to reach it; others pass unchanged.
	UnknownTool(name string, err error) error

	Tokenizer
}

// Tokenizer is the owner's tokenizer for what an upstream sends client
// session s outside a request of the client's own, and the restoring of
// tokens in what the client answers. The forwarder never tokenizes itself.
type Tokenizer interface {
	LogMessage(s Session, up string, p *mcp.LoggingMessageParams) *mcp.LoggingMessageParams
	ProgressMessage(s Session, up string, p *mcp.ProgressNotificationParams) // p is a copy
	SamplingRequest(s Session, up string, p *mcp.CreateMessageWithToolsParams) *mcp.CreateMessageWithToolsParams
	SamplingBack(s Session, up string, res *mcp.CreateMessageWithToolsResult)
	ElicitRequest(s Session, up string, p *mcp.ElicitParams) *mcp.ElicitParams
	ElicitBack(s Session, up string, res *mcp.ElicitResult)
}

// Session is a client session as the forwarder sees it. Values must be
// comparable, and the same session always the same value.
type Session interface {
	upstream.Session
	// ServerSession sends the client requests and notifications.
	ServerSession() *mcp.ServerSession
	// LogLevel is what the session asked logging/setLevel for, "" if
	// nothing; SetLogLevel records it.
	LogLevel() mcp.LoggingLevel
	SetLogLevel(mcp.LoggingLevel)
	// Routes is the relay's bookkeeping of the session, which the
	// session keeps, and drops as it ends.
	Routes() *Routes
}

// Server is one server of a provider, as expose shows its tools.
type Server struct {
	Name  string
	Tools []*mcp.Tool
}

// Routes is the relay's bookkeeping of one client session (relay.go): its
// requests in flight to each upstream, its last request to each, its last
// request to toolfold, and the progress tokens it sent upstream. The zero
// value is ready.
type Routes struct {
	mu       sync.Mutex
	flights  map[string]map[uint64]flight // upstream -> request seq -> the client request
	lastCall map[string]uint64            // upstream -> seq of the session's last request there
	lastSeen uint64                       // seq of the session's last request to toolfold
	progress map[string]progressRoute     // progress token sent upstream -> the client's
}

// Seen records seq (Options.Seq) as the session's last request to toolfold.
func (r *Routes) Seen(seq uint64) {
	r.mu.Lock()
	r.lastSeen = seq
	r.mu.Unlock()
}
