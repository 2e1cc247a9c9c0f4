package index

import (
	"github.com/toolfold/toolfold/sandbox"
	"slices"
	"strconv"
)

// ScriptIdent maps a name to a script identifier, as every script
// language's tools.server.tool chain spells it: see sandbox.ScriptIdent.
func ScriptIdent(s string) string { return sandbox.ScriptIdent(s) }

// assignIdents gives each distinct name a unique identifier. A name that
// already is its identifier keeps it; the others take their identifier, or
// when it is taken, the first free of ident_2, ident_3, ... in sorted order
// of the names. The result maps each name to its identifier.
func assignIdents(names []string) map[string]string {
	out := make(map[string]string, len(names))
	taken := make(map[string]bool, len(names))
	for _, n := range names {
		if ScriptIdent(n) == n {
			out[n] = n
			taken[n] = true
		}
	}
	rest := make([]string, 0, len(names)-len(out))
	for _, n := range names {
		if _, ok := out[n]; !ok {
			rest = append(rest, n)
		}
	}
	slices.Sort(rest)
	rest = slices.Compact(rest)
	for _, n := range rest {
		base := ScriptIdent(n)
		id := base
		for i := 2; taken[id]; i++ {
			id = base + "_" + strconv.Itoa(i)
		}
		out[n] = id
		taken[id] = true
	}
	return out
}
