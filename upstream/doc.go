// Package upstream is toolfold's side of its upstream servers: one
// supervised mcp.Client session per configured upstream, in a Pool.
//
//	proxy ─▶ Pool.CallTool ─▶ upstream (supervisor) ─▶ mcp.Client ─[Hooks.Chains]─▶ transport ─▶ upstream server
//	                              │                        ▲
//	                              └─ scope: session ─▶ one instance per client Session (scope.go)
//
// Supervision (upstream.go, pool.go): New prepares a pool from the
// config's upstreams, Start connects every enabled one concurrently in the
// background, and one that fails never holds up or stops the others. Each
// supervisor connects within connect_timeout, lists the tools (bounded
// against endless pagination), re-lists them on
// notifications/tools/list_changed, and, when the connection fails or the
// process dies, reconnects with backoff (500 ms doubling to 30 s, reset
// after a minute up). Status says, per upstream, its state, error,
// protocol, tools and restarts, as `toolfold check` shows them; a call to
// an upstream that cannot take it is an *UnavailableError whose message
// tells the model whether to retry (errors.go). Upstreams with a cached tool list
// (SetCached) are searchable before they connect (Catalog), and may start
// on their first call (SetStartOnCall).
//
// Transports (transport.go, lineconn.go, procattr_*.go, httptransport.go):
// a stdio upstream runs in its own process group (stopping it stops what
// it spawned; on Linux the kernel kills it if toolfold dies), with the
// user's environment plus its own, its stderr logged, scrubbed of personal
// data (Options.Scrub) and its last lines kept to explain a crash; it is
// stopped as the MCP spec asks (close stdin, SIGTERM, SIGKILL). Its
// messages are read by lineConn on the SDK's reader goroutine, each frame
// bounded. An HTTP upstream speaks streamable HTTP with its configured
// headers, bounded response bodies, and OAuth sign-in where configured
// (SetOAuth, package oauth).
//
// Notification ordering (order.go): an upstream's log and progress
// notifications for a call are relayed before the call's result reaches
// the caller, although the go-sdk queues notifications behind results.
//
// Call deadlines (deadline.go): call_timeout bounds each call with one
// timer per upstream rather than one per call, on the passthrough path's
// hot loop.
//
// Per-session instances (scope.go): an upstream with scope: session runs
// one instance per client session that calls it, bounded by instances,
// started on the session's first call and stopped by EndSession, which
// the owner calls on the session's one end path.
//
// The package never imports proxy (cmd/toolfold's TestDependencyDirection).
// What it needs of its owner it asks through Hooks (hooks.go): the
// middleware chains on each client (the proxy's chain.go lists them:
// telemetry, tokenizing, logging, the relay's tracking), the handlers that
// pass an upstream's requests and notifications to the client session
// that caused them, and the client session a call is made for. The pool
// is one of the proxy's tool providers, like any other.
package upstream
