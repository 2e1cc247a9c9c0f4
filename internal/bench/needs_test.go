package bench

import (
	"slices"
	"testing"
)

// TestOnlyScenariosRunsSchemas: bench --only scenarios read the schemas
// section's figures without running it (an index out of range).
func TestOnlyScenariosRunsSchemas(t *testing.T) {
	if got := withNeeds([]string{"scenarios"}); !slices.Contains(got, "schemas") {
		t.Errorf("withNeeds(scenarios) = %v, want schemas added", got)
	}
	if got := withNeeds([]string{"latency"}); !slices.Equal(got, []string{"latency"}) {
		t.Errorf("withNeeds(latency) = %v", got)
	}
	if got := withNeeds(nil); len(got) != 0 {
		t.Errorf("withNeeds(nil) = %v, want every section (empty)", got)
	}
}
