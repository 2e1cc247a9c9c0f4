// Package proxy is toolfold's core: the client-facing MCP server, the hub
// in front of the pool of upstream sessions (package upstream), and the
// two tools that replace the upstreams' own.
//
//	client ⇄ mcp.Server ─[recover, trace, log, session, pii, forward]─▶ search_tools ─▶ index ◀─ providers
//	                                                       ├─▶ run_script ─▶ sandbox.Runner ─▶ scriptHost
//	                                                       └─▶ passthrough tools ─┐
//	scriptHost ─────────────────────────────────────────────▶ providers ◀─────────┘
//	providers ─[policy, flows]─▶ upstream.Pool ─▶ upstream mcp.Client ─[track, order, trace, log, discover, rewrite]─▶ upstream server
//	          └▶ skills, Options.Providers ─[trace, pii]─▶ in-process tools
//
// A Proxy is built from a validated config.Config (New), connects every
// upstream concurrently in the background (Start), and serves its
// mcp.Server over stdio or streamable HTTP (HTTPHandler). One failing
// upstream never stops the others: it is reported by Status, its tools are
// marked unavailable in search results, and it is reconnected with backoff.
// The upstream sessions, their transports and supervision are package
// upstream's; the proxy implements its Hooks (poolHooks, with the chains,
// in chain.go) and ends a session's own upstream instances on the
// session's one end path.
//
// Tools come from providers (provider.go): the Provider interface gives
// servers (namespaces) of tools with their schemas and annotations, and a
// call function. The upstream pool is the first provider, the saved skills
// (package skillhost) the second; Options.Providers adds more. The
// catalog, search_tools' server list, the script bridge (host.go),
// passthrough and hybrid exposure (package passthrough) and telemetry see
// every provider's tools alike; a call goes to the provider that owns the
// tool's server, every provider's the same way (providers.dispatch): each
// provider's edge traces the call and tokenizes its answer, the pool's on
// the upstream edge, toolfold's own on theirs (ownChain: an INTERNAL span,
// toolfold.provider.tool_calls, and the tokenizer). A provider tells the
// proxy its tools changed through the function it gets in Watch.
//
// The catalog (an immutable *index.Index) is rebuilt whenever a provider's
// tools change: an upstream connects, drops, or announces
// notifications/tools/list_changed, a skill is saved; the two
// advertised tools' descriptions, which name the servers and their tool
// counts, are re-registered when they change, so clients are notified too.
//
// Every rebuilt catalog is also written as code (codetree.go, package
// codeapi) in the background: the read-only servers/ and skills/ trees a
// run sees in its workspace (sandbox.Request.Tree), one per catalog
// version, or per session where upstreams' texts hold personal data.
//
// Middleware order is declared once, in chain.go, the only file that
// registers middleware (a test fails on any other, and another checks the
// order requests really meet them in). Handlers hold only their own logic
// (tools.go for the two tools, host.go for what a script reaches).
// What a run prints reaches a client that listens while it runs
// (progress.go: progress notifications and info log messages, tokenized
// like the result, coalesced).
//
// Policy and audit (policy.go, approval.go; packages policy and audit):
// every call of a provider's tool, from a script, a skill or a passthrough
// or hybrid tool, passes callChain's policy entry (chain.go), which
// decides it (deny, rate, ask a person), makes it when allowed, and writes
// its audit line; runs get one too. A person is asked through the client
// that made the call: as multi round-trip input requests in run_script's
// (or the passthrough tool's) result on protocol 2026-07-28 and later, the
// run parked in its Session until the client retries with the answer;
// with elicitation/create on older protocols; never, failing closed, when
// the client has no elicitation. The run's wall clock is paused while the
// person decides. Tools are pinned as the catalog is built, and
// search_tools shows each tool's policy.
//
// An Observer (observer.go; Options.Observer, the dashboard of package
// dashboard) is told of each run's start and end and gets every audit
// record, all tokenized, and is asked about each parked call beside the
// client (the first answer wins), or instead of it when the client has no
// elicitation: then the call waits for the observer's page, and the run's
// answer says a person was asked there.
//
// Where a PII token's value may go (flows.go): callChain's flows entry
// decides each token a call's arguments hold, by pii.flows and, where it
// asks, by the person (the same form); the upstream edge (rewrite.go)
// restores only what it allowed, and decides requests that are no tool
// call by the rules alone. Tokens minted from an answer record the tool
// that gave it.
//
// A client session is one Session (session.go): its lifetime context, PII
// vault, workspace and share of the run slots (a workspace.Owner, package
// workspace), log level, recent searches, the relay's bookkeeping of its
// requests in flight and progress tokens, its approvals and the calls
// waiting for a person. The session middleware finds it for each request
// and puts it in the context; it ends in one place (sessions.end) whatever
// ended it.
//
// Personal data (package rewrite): the session middleware puts the
// session's token vault in the context, and one component, the tokenizer
// (tokenizer.go), replaces personal data with that vault's tokens on every
// path a value takes toward the client, one method per path: each
// provider's answers (tool results, errors, resources/read and
// resources/list, prompts/get, completions) on the provider's edge,
// innermost (the upstream edge's rewrite, rewrite.go; ownChain's pii);
// the lists served from toolfold's own registry (tools, resources,
// templates, prompts mirrored from upstreams) in the client edge's pii
// entry; search_tools' text (catalogpii.go says when a search needs it)
// and each session's servers/ tree; a run's answer, progress and log
// messages; what an upstream sends a client outside a request (log,
// progress, sampling, elicitation); and what the audit, the observer and
// spans record. Its doc comment lists the paths and their callers; a test
// fails on tokenizing in any other file. The upstream edge restores tokens
// in what goes upstream (rewrite.go), a skill holding personal data is
// refused (skillhub.go), an upstream's stderr is redacted as it is read,
// and RedactLogger redacts the log. The upstream sessions are shared by
// all client sessions; the vault travels with the request instead.
//
// OpenTelemetry (package telemetry, the API only) traces every hop: a
// SERVER span per client request continuing the client's trace from
// params._meta, an INTERNAL span per script run and search, a CLIENT span
// per upstream request whose context goes upstream in params._meta; with
// the MCP duration histograms and toolfold's counters. New hands it the
// options' providers and what it needs of the proxy (telemetry.Config: the
// tokenizer's scrubFunc, sessiontag.Of, expectedFailure); chain.go places its
// middleware on both edges, tools.go and skillhub.go wrap runs and
// searches in its spans, traceOwn the calls to toolfold's own providers.
// Options without providers cost nothing.
//
// Everything but tools passes through (package passthrough, its Forwarder
// made by New): upstream prompts, resources and templates are mirrored
// onto the server under collision-free names, reads, gets, completion and
// subscriptions go to their owner, and an upstream's sampling,
// elicitation, roots, log and progress messages reach the client session
// that caused them (its relay.go explains the attribution). The forwarder
// never imports proxy: it asks through passthrough.Hub (hub in hub.go:
// sessions, the providers behind the policy, the tokenizer's paths), and
// chain.go places its middleware. config's expose setting chooses the
// tools: the two (code), every upstream tool (passthrough), or the two
// plus pinned ones (hybrid).
//
// Saved skills (package skillhost) are a provider of toolfold's own: their
// tools, skills.save and the calling of a skill are skillhost's, which
// never imports proxy. The proxy gives it what only the proxy has
// (skillhub.go): it runs a skill's code (skillhost.Hub) nested in its
// caller's run chain, whose budget of wall time and tool calls every run
// of the chain shares (policy.go, beside the run's identity, runOf), takes
// a run slot and passes on the progress of a skill a client calls outside
// a script, and says what a script may not save (its session's tokens,
// personal data). A script reaches a skill by its name (host.go).
//
// Errors come in two planes: malformed requests (a missing code, an unknown
// detail level) are JSON-RPC invalid-params errors; everything the model can
// fix by changing its script or query is an isError result whose text says
// what to do.
package proxy
