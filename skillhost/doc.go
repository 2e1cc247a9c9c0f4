// Package skillhost offers the saved skills (package skills, the store) as
// a provider of tools: what they are as tools, how a script saves one, and
// how one is called.
//
//	search_tools, passthrough, hybrid ◀─ Servers: one server, "skills", a tool per skill (provider.go)
//	script: skills.save{...}          ─▶ Save: who may, Saver.Refuse, CompileCheck, the store (save.go)
//	script: tools.skills.NAME{...}    ─▶ Call ─────────────────────▶ the skill, its args checked ─▶ Hub.RunSkill (run.go)
//	passthrough, hybrid: skills.NAME  ─▶ CallTool ─▶ Hub.Outside ─▶ the same
//
// The provider (provider.go) keeps a snapshot of the store's list, so
// Servers never blocks: read at Start, after a save through it, every
// Poll, and, on a store that keeps a version (skills.KV, shared by
// replicas), whenever the version changes (checked every VersionPoll).
// Its owner sees the change through the function it gave Watch.
//
// Saving (save.go): skills.save in proxy.yaml says who may save (over
// HTTP, every session shares the skills); the saver's Refuse, which its
// owner gives, refuses its session's PII tokens and raw personal data;
// CompileCheck compiles the code in the sandbox without running it, and
// is also what `toolfold skills add` checks a person's skill with.
//
// Running (run.go): a skill runs as a run of its own nested in its
// caller's, within what the caller's run has left; run.go's comment says
// how. The run itself is its owner's to make (Hub: the run chains and
// their budgets, the script hosts, telemetry, run slots and progress);
// this package finds the skill, checks its arguments and says what its
// result or failure is to the caller.
//
// The owner (the proxy) wraps the provider in its own edge (the trace and
// the tokenizer, proxy/chain.go's ownChain), as every provider of
// toolfold's own. The package tokenizes nothing and never imports proxy
// or rewrite (cmd/toolfold's TestDependencyDirection).
package skillhost
