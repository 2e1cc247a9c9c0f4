// Package telemetry is toolfold's OpenTelemetry instrumentation, following
// the semantic conventions for MCP and GenAI (semconv v1.41.0). It
// observes:
//
//   - MCP requests on both edges (requests.go): a SERVER span for each
//     request a client sends toolfold, continuing the client's trace from
//     params._meta (SEP-414: traceparent, tracestate) or the HTTP headers;
//     a CLIENT span for each request toolfold sends an upstream, whose
//     context replaces any trace context in the request's params._meta,
//     so an upstream sees ours, never the client's (context.go); the MCP
//     operation duration histograms and the upstream tool call counter;
//   - script runs (runs.go): an INTERNAL execute_script span per run, with
//     the runs, limits hit and kept result bytes counters;
//   - searches (runs.go): an INTERNAL search_tools span with the search's
//     shape;
//   - calls to a provider of toolfold's own, such as skills (runs.go): an
//     INTERNAL span and the provider tool call counter;
//   - with Config.CaptureContent, what was sent and answered (content.go):
//     tool arguments and results, script code, search queries, cut to
//     4 KiB each.
//
// The span tree of one run_script:
//
//	tools/call run_script          SERVER    one per client request (ServerMiddleware)
//	└─ execute_script              INTERNAL  the script's run (StartScript, EndScript)
//	   ├─ tools/call add           CLIENT    one per upstream request (ClientMiddleware)
//	   ├─ tools/call skills.digest INTERNAL  one per call to a provider of toolfold's own (TraceProviderCall)
//	   └─ search_tools             INTERNAL  a search, from a script or search_tools (TraceSearch)
//
// It is given everything through Config (New): the tracer and meter
// providers (the API only; cmd/toolfold installs the SDK), whether to
// capture content, and the few functions of the proxy it needs: Clean,
// which keeps personal data out of what spans record (captured content,
// error statuses hold tokens, never the values); SessionTag, which stands for a session id; the
// failures that are part of normal operation (ExpectedFailure); and the
// errors that mean a lost upstream connection (Disconnected). With
// neither provider set New returns nil, and a nil *Telemetry is valid and
// records nothing: the client edge's middleware is not even wrapped, and
// the upstream edge only strips trace context.
//
// It returns middleware (mcp.Middleware) and never registers it: proxy's
// chain.go places each in its chain. It never imports package proxy or
// package upstream.
package telemetry
