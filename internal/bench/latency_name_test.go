package bench

import (
	"strings"
	"testing"
)

// TestSearchCaseNameWithoutSchemas: bench --only latency runs no schemas
// section, and naming the search case must not index an empty list.
func TestSearchCaseNameWithoutSchemas(t *testing.T) {
	if got := searchCaseName(&Report{}); !strings.HasPrefix(got, "search_tools") {
		t.Fatalf("name %q", got)
	}
}
