// Package store keeps what toolfold shares beyond one client session, and
// between replicas: saved skills, learned search usage, tool pins and
// approvals that outlive a session, rate-limit counters counted across
// sessions, the upstream catalog cache.
//
// One small interface, Store, with two implementations:
//
//   - Files (the default): one file per key under a directory of toolfold's,
//     counters in memory. One machine, one process.
//   - Redis (store: redis://[USER:PASSWORD@]HOST:PORT/DB, or rediss:// for
//     TLS with Options.CAFile for a private CA): every replica sees
//     the same keys and counters. A Redis that goes away does not stop the
//     replica: reads fall back to what this replica last read or wrote
//     (stale, said in the error log), writes fail at once with an error that
//     says the change was not saved, nothing waits longer than a few hundred
//     milliseconds, and the replica carries on when Redis returns.
//
// The store is a trust root: skills and pins in it decide what runs and
// what is allowed. Signed wraps a Store so that every value carries an
// HMAC over its key and value under a key the replicas share and the store
// never sees; a value read back without a valid MAC is refused
// (ErrUnauthenticated) and logged. Counters (Incr) cannot be signed: a
// Redis writer can reset a rate limit, not plant a skill or approve a pin.
// Features still check the shape of what they read (skills.KV validates a
// skill as a save does).
//
// Features keep their own types (a skill, a pin) and encode them into
// values; the store knows bytes and keys only. Keys are slash-separated
// paths ("skills/weekly_report/SKILL.md"); Keys lists by prefix.
package store
