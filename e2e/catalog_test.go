package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLISearchCached: the first `toolfold search` connects and caches
// the upstreams' tool lists; the next answers the same from the cache,
// without starting a server.
func TestCLISearchCached(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cfg := writeConfig(t, configYAML(ups))
	first := runCLI(t, "search", "-c", cfg, "--detail", "name", "read a text file")
	if first.code != 0 || len(qualifiedNames(first.stdout)) == 0 {
		t.Fatalf("first search: exit %d\n%s\nstderr:\n%s", first.code, first.stdout, first.stderr)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cfg), ".toolfold", "catalog.json")); err != nil {
		t.Fatalf("no catalog cache beside the config: %v", err)
	}
	second := runCLI(t, "search", "-c", cfg, "--detail", "name", "--log-level", "info", "read a text file")
	if second.code != 0 || second.stdout != first.stdout {
		t.Errorf("cached search: exit %d\n%s\nwant the first search's\n%s", second.code, second.stdout, first.stdout)
	}
	if !strings.Contains(second.stderr, "answering from the catalog cache") || strings.Contains(second.stderr, "upstream ready") {
		t.Errorf("the second search did not answer from the cache alone:\n%s", second.stderr)
	}
}
