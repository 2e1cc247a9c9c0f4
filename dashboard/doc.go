// Package dashboard is toolfold's local web page: what the agent does, as
// it does it, for the person at the machine. serve offers it at / of the
// HTTP listener, or (ui: 127.0.0.1:PORT) on a listener of its own beside
// stdio.
//
// # What it shows
//
// Upstreams and their state; live client sessions (by their log tags,
// s-xxxxxxxx, never their ids); pinned tools and those whose definition
// changed; runs live and past (language, tokenized code, each tool call
// with its policy decision and duration, the answer the model got, the
// tokens of results kept out of its context); approvals waiting for a
// person, answerable on the page; the audit, filterable and live; the
// token economy over time as an inline SVG chart.
//
// The proxy feeds it through proxy.Observer (Dashboard implements it):
// everything it is given is already what the model may see, tokenized by
// the session's vault. The page shows only that: no raw personal value,
// no session id.
//
// # Asking a person
//
// Ask parks a call the policy asks about until the person answers on the
// page (allow once, allow for the session, deny) or its context ends (the
// policy's approval_timeout). The proxy asks the page beside the client
// when the client can ask, and instead of failing closed when it cannot.
//
// # Security model
//
// The page is for this machine's operator only: Handler answers loopback
// peers only, with a Host that names a loopback address (no DNS
// rebinding); every request must carry the random token printed at start
// (the URL's ?token=, traded at once for an HttpOnly, SameSite=Strict
// cookie): without it the answer is 404, no page. Forms are POST only,
// carry a per-process CSRF token bound to the page token, and are refused
// when their Origin (or, without one, Referer) is not the page's own. On
// the HTTP listener the page is the operator's view of every session: a
// client holds an MCP bearer token, not the page token, and cannot reach
// it.
//
// # Layout
//
// Server-rendered HTML (html/template) and server-sent events (/ui/events)
// that carry rendered fragments for the live parts; the stylesheet and the
// few lines of script are embedded (no build step, no CDN).
package dashboard
