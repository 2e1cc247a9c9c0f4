// Package store keeps what toolfold shares beyond one client session, and
// between replicas: saved skills, learned search usage, tool pins and
// approvals that outlive a session, rate-limit counters counted across
// sessions, the upstream catalog cache.
//
// One small interface, Store, with two implementations:
//
//   - Files (the default): one file per key under a directory of toolfold's,
//     counters in memory. One machine, one process.
//   - Redis (store: redis://HOST:PORT/DB or rediss://): every replica sees
//     the same keys and counters. A Redis that goes away does not stop the
//     replica: reads fall back to what this replica last read or wrote
//     (stale, said in the error log), writes fail at once with an error that
//     says the change was not saved, nothing waits longer than a few hundred
//     milliseconds, and the replica carries on when Redis returns.
//
// Features keep their own types (a skill, a pin) and encode them into
// values; the store knows bytes and keys only. Keys are slash-separated
// paths ("skills/weekly_report/SKILL.md"); Keys lists by prefix.
package store
