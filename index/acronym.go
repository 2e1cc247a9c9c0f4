package index

import (
	"slices"
	"strings"
)

// Abbreviations are learned from the catalog itself, in two ways:
//
//   - a definition: a word written in capitals next to a phrase whose
//     words begin with its letters ("Internet Assigned Numbers Authority
//     (IANA)", "MR (merge request)");
//   - the initials of a phrase of two or three words, not verbs, that
//     begins or ends the names of at least acronymMinTools tools
//     ("create_pull_request", "list_pull_requests": pr).
//
// A query word that no tool's name uses and that is the abbreviation of
// such a phrase also matches the phrase, at acronymWeight.
var (
	acronymWeight   = 0.6
	acronymMinTools = 2
)

// maxAcronymPhrases caps the phrases one abbreviation stands for: more
// than a few and it is too ambiguous to help.
const maxAcronymPhrases = 3

// acronymSet collects abbreviations and their phrases while the index is
// built.
type acronymSet struct {
	defined map[string]map[string]bool // abbreviation → phrases (stemmed, space-joined)
	named   map[string]map[string]int  // abbreviation → phrase → tools naming it
	ws      []string                   // addText's words, reused
}

func newAcronymSet() *acronymSet {
	return &acronymSet{defined: make(map[string]map[string]bool), named: make(map[string]map[string]int)}
}

// addName counts the phrases at the start and end of a tool's name words
// (stemmed, namespace words left out), once its verbs are left out too
// ("create_pull_request" → pull request).
func (as *acronymSet) addName(name []string) {
	name = slices.DeleteFunc(slices.Clone(name), func(w string) bool { return wordIntent(w, false) != 0 })
	seen := make(map[string]bool)
	for n := 2; n <= 3 && n <= len(name); n++ {
		for _, ph := range [][]string{name[:n], name[len(name)-n:]} {
			key := strings.Join(ph, " ")
			if seen[key] {
				continue
			}
			seen[key] = true
			a := initials(ph)
			if as.named[a] == nil {
				as.named[a] = make(map[string]int)
			}
			as.named[a][key]++
		}
	}
}

// addText finds definitions in a description: a word of two to five
// capitals (and a plural s) right before or after the phrase of as many
// words whose initials it spells.
func (as *acronymSet) addText(text string) {
	if !hasCapitalPair(text) {
		return
	}
	ws := as.ws[:0]
	for run := range alnumRuns(text) {
		ws = append(ws, run)
	}
	as.ws = ws
	for i, w := range ws {
		a, ok := capitals(w)
		if !ok {
			continue
		}
		n := len(a)
		for _, from := range []int{i - n, i + 1} {
			if from < 0 || from+n > len(ws) || !spells(a, ws[from:from+n]) {
				continue
			}
			ph := make([]string, n)
			for j := range n {
				ph[j] = strings.ToLower(ws[from+j])
			}
			if stopwords[ph[0]] || stopwords[ph[n-1]] {
				continue
			}
			for j := range ph {
				ph[j] = stem(ph[j])
			}
			if as.defined[a] == nil {
				as.defined[a] = make(map[string]bool)
			}
			as.defined[a][strings.Join(ph, " ")] = true
		}
	}
}

// spells reports whether the words' initials, lowercased, are a.
func spells(a string, ws []string) bool {
	for j, w := range ws {
		c := w[0]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != a[j] {
			return false
		}
	}
	return true
}

// hasCapitalPair reports whether text has two ASCII capitals in a row.
func hasCapitalPair(text string) bool {
	for i := 1; i < len(text); i++ {
		if text[i] >= 'A' && text[i] <= 'Z' && text[i-1] >= 'A' && text[i-1] <= 'Z' {
			return true
		}
	}
	return false
}

// capitals returns the lowercase letters of a word of two to five
// capitals, with an optional plural s ("PRs" → pr).
func capitals(w string) (string, bool) {
	w = strings.TrimSuffix(w, "s")
	if len(w) < 2 || len(w) > 5 {
		return "", false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'A' || w[i] > 'Z' {
			return "", false
		}
	}
	return strings.ToLower(w), true
}

func initials(ph []string) string {
	var b strings.Builder
	for _, w := range ph {
		b.WriteByte(w[0])
	}
	return b.String()
}

// finish keeps, for each abbreviation, its defined phrases and the name
// phrases enough tools share, at most maxAcronymPhrases of them, the most
// named first.
func (as *acronymSet) finish() map[string][][]string {
	out := make(map[string][][]string)
	keys := make(map[string]bool)
	for a := range as.defined {
		keys[a] = true
	}
	for a := range as.named {
		keys[a] = true
	}
	for a := range keys {
		type cand struct {
			phrase string
			n      int
		}
		var cs []cand
		for ph := range as.defined[a] {
			cs = append(cs, cand{ph, 1 << 20})
		}
		for ph, n := range as.named[a] {
			if n >= acronymMinTools && !as.defined[a][ph] {
				cs = append(cs, cand{ph, n})
			}
		}
		if len(cs) == 0 {
			continue
		}
		slices.SortFunc(cs, func(x, y cand) int {
			if x.n != y.n {
				return y.n - x.n
			}
			return strings.Compare(x.phrase, y.phrase)
		})
		for _, c := range cs[:min(len(cs), maxAcronymPhrases)] {
			out[a] = append(out[a], strings.Fields(c.phrase))
		}
	}
	return out
}

// appendAcronyms appends the phrases a query word (stemmed) abbreviates,
// when no tool's name uses the word itself.
func (lex *lexicon) appendAcronyms(alts []alternative, w string) []alternative {
	if acronymWeight == 0 || len(w) < 2 || len(w) > 6 {
		return alts
	}
	if e := lex.terms[w]; e != nil && e.named {
		return alts
	}
	phrases, ok := lex.acronyms[w]
	if !ok {
		phrases = lex.acronyms[strings.TrimSuffix(w, "s")] // "ffs"
	}
	for _, ph := range phrases {
		alts = append(alts, alternative{terms: ph, weight: acronymWeight})
	}
	return alts
}
