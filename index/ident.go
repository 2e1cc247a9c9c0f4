package index

import (
	"slices"
	"strconv"
	"strings"
)

// ScriptIdent maps a name to a script identifier: characters other than
// [A-Za-z0-9_] become '_', and a leading digit gets '_' prefixed.
// ScriptIdent("get-sum") is "get_sum", ScriptIdent("365") is "_365".
func ScriptIdent(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 1)
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

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
