//go:build !race

package e2e

// raceBuild: this test binary runs without the race detector; toolfold is built
// with -race only if TOOLFOLD_E2E_RACE=1.
const raceBuild = false
