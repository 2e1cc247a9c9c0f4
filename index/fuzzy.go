package index

import (
	"strings"
	"unicode"

	"github.com/sahilm/fuzzy"
)

// Weights of identifier matching, added to the lexical score.
const (
	exactBonus = 1.0 // the query is a tool's name, qualified name or identifier path
	fuzzyBonus = 0.5 // × the sahilm/fuzzy score, scaled to [0, 1] among the best matches
	fuzzyDepth = 20  // fuzzy matches that get a share of fuzzyBonus
)

// identLike reports whether a query looks like an identifier rather than a
// sentence: a single chunk such as "read_file", "fs.readFile" or "kubectl".
func identLike(q string) bool {
	q = strings.TrimSpace(q)
	return q != "" && !strings.ContainsFunc(q, unicode.IsSpace)
}

// identKey normalises a name for exact comparison: lowercase, without
// separators and without a "tools." prefix.
func identKey(s string) string {
	return compound(strings.TrimPrefix(strings.TrimSpace(s), "tools."))
}

// qnameSource lets sahilm/fuzzy scan the qualified names without copying.
type qnameSource []doc

func (s qnameSource) String(i int) string { return s[i].qname }
func (s qnameSource) Len() int            { return len(s) }

// fuzzy scores an identifier-like query against every qualified name with
// sahilm/fuzzy (subsequence matching that rewards matches at word starts
// and runs of adjacent characters), and adds exactBonus to the tools the
// query names exactly.
func (ix *Index) fuzzy(query string, sc *scratch) {
	pattern := strings.TrimPrefix(strings.TrimSpace(query), "tools.")
	touch := func(d int32, v float32) {
		if sc.total[d] == 0 && sc.fuzzy[d] == 0 {
			sc.touched = append(sc.touched, d)
		}
		sc.fuzzy[d] += v
	}
	key := identKey(pattern)
	for _, d := range ix.exact[key] {
		touch(d, exactBonus)
	}
	ms := fuzzy.FindFrom(pattern, qnameSource(ix.docs))
	if len(ms) == 0 {
		return
	}
	ms = ms[:min(len(ms), fuzzyDepth)]
	top, low := ms[0].Score, ms[len(ms)-1].Score
	for _, m := range ms {
		share := 1.0
		if top > low {
			share = float64(m.Score-low) / float64(top-low)
		}
		touch(int32(m.Index), float32(fuzzyBonus*share))
	}
}
