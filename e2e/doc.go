// Package e2e drives the built toolfold binary end to end, the way a user's MCP
// client does: over stdio and streamable HTTP, with the go-sdk client, in front of
// real upstream servers.
//
// The upstreams are the npm reference servers (server-everything, -filesystem,
// -memory), pinned in testdata/package.json and testdata/package-lock.json, and the
// Go SDK's conformance everything-server at the version go.mod requires. TestMain
// builds toolfold and the Go server and installs the npm servers with `npm ci` into a cache directory keyed by
// the lock file's hash ($TOOLFOLD_E2E_CACHE, default <user cache dir>/toolfold-e2e),
// so a fresh clone needs nothing but Go, Node.js and npm, and a second run starts
// at once. Without node or npm the tests that need them are skipped, except under
// CI=true, where they fail.
//
// Telemetry is checked against an OTLP receiver in the test process (gRPC and
// HTTP, built from go.opentelemetry.io/proto/otlp): the spans of a run_script
// call must arrive, with their parents, when toolfold exits. The test's own
// OTEL_* variables never reach toolfold; tests that want some pass them.
//
// The dashboard is checked in a real browser: headless Chromium (the Debian
// package, apt-get install -y chromium) driven over the DevTools protocol on
// a pipe (chromium_test.go). Without it that test is skipped, except under
// CI=true, where it fails.
//
// Every test has a deadline, and every process a test starts is checked at teardown:
// toolfold must leave no upstream or script process running, and its stderr must
// show no panic and no data race.
//
// Environment:
//
//	TOOLFOLD_E2E_CACHE  where installs are cached
//	TOOLFOLD_E2E_RACE   1 or 0: build toolfold with -race or without; by
//	                    default it follows the test binary (go test -race)
//	TOOLFOLD_SCREENSHOT_DIR  where the dashboard test saves its screenshots
//	                    (default: a temporary directory)
//	CI=true             missing node/npm or chromium is a failure, not a skip
package e2e
