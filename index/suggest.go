package index

import (
	"cmp"
	"slices"
	"strings"
)

// suggestMin is the similarity (1 − edit distance / length) a name must
// reach to be suggested for its spelling.
const suggestMin = 0.6

// Suggest returns up to n qualified names closest to an unknown name: names
// spelled alike (typos, "-" for "_", an identifier path for a name), the
// same tool name on another server, and when those are fewer than n, the
// best search hits for the name's words ("github.make_issue" finds
// github.create_issue).
func (ix *Index) Suggest(name string, n int) []string {
	name = strings.TrimPrefix(strings.TrimSpace(name), "tools.")
	if n <= 0 || name == "" {
		return nil
	}
	key, toolKey := identKey(name), identKey(toolPart(name))
	type cand struct {
		doc int
		sim float64
	}
	var cs []cand
	for i, d := range ix.docs {
		sim := max(similarity(key, identKey(d.qname)), similarity(key, identKey(d.ident)))
		if toolKey != "" {
			// The right tool on the wrong server, or no server at all.
			sim = max(sim, 0.95*similarity(toolKey, identKey(d.tool.Name)))
		}
		if sim >= suggestMin {
			cs = append(cs, cand{i, sim})
		}
	}
	slices.SortFunc(cs, func(a, b cand) int {
		if c := cmp.Compare(b.sim, a.sim); c != 0 {
			return c
		}
		return cmp.Compare(a.doc, b.doc)
	})
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, ix.docs[c.doc].qname)
	}
	if len(out) < n {
		for _, h := range ix.search(strings.Join(words(name), " "), "", n, nil) {
			if len(out) == n {
				break
			}
			if !slices.Contains(out, h.QName) {
				out = append(out, h.QName)
			}
		}
	}
	return out
}

// toolPart is what follows the server in a qualified name, or the name.
func toolPart(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// similarity is 1 − (edit distance / length of the longer word), 0 when
// that falls below suggestMin.
func similarity(a, b string) float64 {
	n := max(len(a), len(b))
	if n == 0 {
		return 0
	}
	limit := int(float64(n) * (1 - suggestMin))
	d := editDistance(a, b, limit)
	if d > limit {
		return 0
	}
	return 1 - float64(d)/float64(n)
}
