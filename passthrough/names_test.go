package passthrough

import (
	"strings"
	"testing"
)

func TestExposeNames(t *testing.T) {
	items := []named{{"a", "x"}, {"b", "x"}, {"a", "y"}, {"b", "a__x"}, {"c", "has:colon"}, {"c", strings.Repeat("n", 80)}}
	got := exposeNames(items, false)
	if !strings.HasPrefix(got[0], "a__x_") || got[2] != "y" || got[4] != "has:colon" || got[5] != strings.Repeat("n", 80) {
		t.Errorf("auto: %q", got)
	}
	if got[1] != "b__x" || got[3] != "a__x" {
		t.Errorf("b's a__x keeps its name and b__x differs: %q", got)
	}
	all := exposeNames(items, true)
	seen := map[string]bool{}
	for i, n := range all {
		if seen[n] || len(n) > 64 || sanitizeName(n) != n {
			t.Errorf("always: %d %q not unique or not strict", i, n)
		}
		seen[n] = true
	}
	hybrid := exposeNames([]named{{"a", "run_script"}}, false, "search_tools", "run_script")
	if hybrid[0] != "a__run_script" {
		t.Errorf("reserved: %q", hybrid)
	}
}

// TestScriptCallsReachTheirSession: in code mode, an upstream tool called
// from a script asks the session running the script for sampling,
// elicitation and roots, even with another session connected.
