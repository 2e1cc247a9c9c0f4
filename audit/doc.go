// Package audit keeps toolfold's audit trail: one JSON line for every
// upstream tool call and every run, in the file proxy.yaml's "audit:"
// section names, rotated by size (gopkg.in/natefinch/lumberjack.v2).
// Without the section nothing is recorded: Open returns a nil *Log, on
// which every method does nothing.
//
// A line holds the time, the client session, the run id, the run's
// language and code hash (the code itself only with audit.capture_code:
// true, tokenized like the arguments), the tool, the policy's
// decision and the rule that made it, how an approval ended, the
// duration, the result's size, whether it was an error, the trace id, and
// the arguments shortened (internal/shorten). The proxy writes the line
// where every provider tool call is made, before the upstream edge, with
// the arguments tokenized by the client session's PII vault (a value a
// script's author typed too): the audit never sees a raw email address
// while PII rewriting is on.
//
//	{"time":"2026-11-26T12:00:00Z","kind":"call","session":"s1","run_id":"r3","tool":"memory.create_entities",
//	 "decision":"ask","rule":"policy rule 1 (memory.create_*)","approval":"allow_once","duration_ms":12.5,
//	 "result_bytes":240,"is_error":false,"args":"{\"entities\":[{\"observations\":[\"[EMAIL_1]\"]}]}"}
//
// Files and Read read the file and its rotated backups back, for
// `toolfold audit`; Follow goes on reading the file as it is written,
// through rotation, for `toolfold audit --follow`.
package audit
