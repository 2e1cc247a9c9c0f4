//go:build race

package e2e

// raceBuild: this test binary runs under the race detector, so toolfold is built
// with -race too (TOOLFOLD_E2E_RACE=0 turns that off).
const raceBuild = true
