// Package policy decides whether toolfold makes an upstream tool call,
// asks a person first, or refuses it, and keeps the state that goes with
// those decisions. It knows nothing of the proxy: the proxy calls it from
// the chain that wraps every call of a provider's tool (callChain in
// proxy/chain.go, before the upstream edge), once per tools/call,
// whichever path the call took (a script's call, a skill, a passthrough
// or hybrid tool).
//
// # Decisions
//
// New builds a Policy from proxy.yaml's "policy:" section. Decide looks
// at a Tool (its qualified name server.tool, its declared annotations,
// and whether its definition changed since it was pinned) and returns a
// Decision: Allow, Ask or Deny, and the Rule that made it (its 1-based
// index and text, for messages like "denied by policy rule 2
// (memory.delete_*)"). The first rule that matches wins; a call no rule
// matches gets the default. A rule matches when its glob matches the
// name (package internal/glob: * spans any characters, "/" and "."
// included, so memory.* is every tool of memory whatever the upstream
// names it) and every annotation it lists holds as the
// tool declares it: a tool that declares no destructiveHint is matched
// by neither destructiveHint: true nor false. (For a policy that is safe
// with undeclared tools, use default: ask and allow the read-only ones:
// {annotations: {readOnlyHint: true}, action: allow}.) A tool whose
// definition changed is asked about where it would have been allowed.
//
// Label is the short text search_tools shows beside a tool ("denied",
// "asks first", "rate 10/min per session").
//
// # Asking
//
// Authorize runs the whole decision for one call: a deny refuses; a rate
// counts (Limit) and refuses past the limit, saying when to retry; an ask
// passes when the session allowed the tool earlier (Approvals, owned by
// the client session), else asks the person through the client's MCP
// elicitation (an Asker, in form mode: ApprovalRequest.Params builds the
// form, ParseApproval reads the answer) and waits at most the approval
// timeout. A client that cannot elicit refuses every ask (fail closed).
// On protocol 2026-07-28 and later a server may not send
// elicitation/create while it serves a request: the question must travel
// as an input request in the tools/call result, and the client retries
// the call with the answer (multi round-trip requests). Questions is the
// Asker for that case: it parks a run's questions for the run_script
// handler to return, and hands the retried call's answers back to the
// waiting run. Older clients are asked directly (ServerSession.Elicit).
//
// Every refusal is a *Refusal whose message names the rule and says what
// to do next: how to allow the tool in proxy.yaml, when to retry, how to
// approve a changed definition.
//
// The form shows the whole call (ApprovalRequest.Args, indented, never cut:
// a call larger than MaxShownArgs is refused, OutcomeTooLarge) and what
// each token in it stands for (TokenNote: type, origin, a glimpse of the
// value, or the whole value with Reveal); a token no result of the session
// minted is flagged.
//
// # Flows
//
// Flows (flows.go) decide where the value behind a PII token may go
// (pii.flows): Decide looks at a Flow (the token's type, the tools whose
// results held the value, the tool called) and returns Allow, Ask or Deny
// and the FlowRule that said so; with no rule, a value goes back to its
// own server, one the client typed goes anywhere, and another server asks.
// AuthorizeFlows settles one call's flows, asking about all its asked
// flows in one form; "allow for this session" is kept per origin server,
// tool and type in Approvals. A refusal is a *FlowRefusal that names the
// pii.flows rule to add.
//
// # Rates
//
// Rates count calls in fixed windows aligned to the clock, per rule and
// per client session (or over every session with per: all), in a Counter:
// a MemCounter in this process, or the shared store.Store (Redis) so that
// every replica counts together. A counter that fails (Redis away) is
// replaced by a count in this process's memory, with a warning: never
// unlimited.
//
// # Pins
//
// Pins guard against a tool whose definition changes under the user (a
// "rug pull"): Hash is a stable hash of a tool's description, schemas and
// annotations; Pins.Check records it the first time a tool is seen and
// reports PinChanged, from then on, for a tool whose hash differs, until
// Pins.Approve (`toolfold tools approve NAME`) accepts the new
// definition. Pins live in the store (pins/ and the SHA-256 of the name,
// so that no name is too long to pin), beside the config or in Redis. It
// fails closed: a pin that is refused (unsigned, malformed) is replaced by
// one that holds the tool, and a store error is an error the proxy holds
// the tool on. policy.pin_tools: false (config.Policy.NoPinTools) turns pinning
// off: the proxy then neither checks nor records pins.
package policy
