// Package passthrough makes toolfold transparent for everything but its two
// tools: what upstreams offer beside tools reaches clients, and what
// upstreams ask or tell clients reaches the right client session.
//
//	client ─[owner's chain ... forward: Middleware]─▶ prompts/get, resources/read, completion, subscribe ─▶ upstream.Pool
//	client ◀─ Forwarder: sampling, elicitation, roots, progress, log ◀─[Answering, handlers of ClientOptions]─ upstream
//	upstream ◀─[Tracking: which session, which progress token]─ every request made for a client session
//
// The Forwarder (forward.go) serves, on the owner's mcp.Server, the
// methods the SDK's own handlers cannot (Middleware: resources/read of any
// URI an upstream serves, logging/setLevel, which also reaches upstreams),
// forwards prompts/get, completion/complete and resource subscriptions to
// their owner (resources.go), bounds a passthrough tool result (bound.go),
// and carries logging levels and _meta across the hop (meta.go).
//
// The mirror (mirror.go, names.go) registers upstream prompts, resources
// and templates, and with expose: passthrough or hybrid the providers'
// tools, on the server under collision-free names, re-listing an upstream
// when it connects or announces a list change; every exposed name maps
// back to one upstream item.
//
// The relay (relay.go, upstream.go) passes an upstream's sampling,
// elicitation and roots requests and its progress and log notifications to
// the client session that caused them: relay.go explains the attribution.
// Its bookkeeping of each session is a Routes the session keeps.
//
// What it is given (hooks.go): the config, the upstream pool, and a Hub,
// the owner's part: the client sessions (Session: its context, its
// mcp.ServerSession, its log level, its Routes), the providers' servers and
// the call of one of their tools through the owner's policy and approvals,
// and the owner's tokenizer for what goes to a client outside a request of
// its own. The package tokenizes nothing itself and registers no
// middleware: it returns mcp.Middleware values (Middleware, Tracking,
// Answering, RawCapture) and UpstreamHooks for the owner's one file that
// lists every chain.
//
// The package never imports proxy (cmd/toolfold's TestDependencyDirection).
package passthrough
