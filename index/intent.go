package index

import "strings"

// A query usually says what it wants done before what to: "store a note"
// wants a tool that writes, and a tool that only reads notes is the wrong
// answer however well its words match. Search gives each tool the kinds of
// action its name says (read, write, delete; several for "get_or_create",
// none for "browser_click"), takes the query's kind from its first word,
// and lowers the score of tools whose kinds all differ from it, and a
// little that of tools whose name says no kind (extract_key_facts for
// "store a fact"). A query that names no kind is not asking to delete:
// tools that only delete weigh a little less for it.

// intent is a set of kinds of action.
type intent uint8

const (
	intentRead intent = 1 << iota
	intentWrite
	intentDelete
)

// Settings of the action signal: a tool whose kinds conflict with the
// query's keeps 1 − intentPenalty of its score, a tool of no kind
// 1 − intentUnknown, a tool that only deletes, for a query of no kind,
// 1 − intentUnasked; the query's kind is that of the first of its first
// intentWords words that has one, its synonyms voting, and with
// intentWordnet its WordNet relations too (off: "file" as a verb made
// "the files in ./src" a write). Set on the develop halves.
var (
	intentPenalty = 0.5
	intentUnknown = 0.2
	intentUnasked = 0.2
	intentWords   = 1
	intentWordnet = false
)

// intentSeeds are the verbs that name each kind of action. Other words take
// the kind their synonyms (synonyms.go) and WordNet relations vote for.
var intentSeeds = []struct {
	kind  intent
	words string
}{
	{intentRead, `get read list search find show view fetch retrieve query lookup describe inspect browse look`},
	{intentWrite, `create add make write save store insert post send upload update edit modify set append put register`},
	{intentDelete, `delete remove erase destroy purge trash`},
}

var intentSeedIdx = func() map[string]intent {
	m := make(map[string]intent)
	for _, s := range intentSeeds {
		for _, w := range strings.Fields(s.words) {
			m[stem(w)] |= s.kind
		}
	}
	return m
}()

// wordIntent is the kind of action a stemmed word names: its own as a
// seed, else the kind most of its synonyms and, with wordnet, its WordNet
// relations name (weighted as they match), else none. Tools are classified
// without WordNet, so that building an index does not wait for it.
func wordIntent(w string, wordnet bool) intent {
	if k, ok := intentSeedIdx[w]; ok {
		return k
	}
	var votes [3]float64
	vote := func(t string, weight float64) {
		k := intentSeedIdx[t]
		for i := range votes {
			if k&(1<<i) != 0 {
				votes[i] += weight
			}
		}
	}
	for _, a := range synonyms()[w] {
		if len(a.terms) == 1 {
			vote(a.terms[0], a.weight)
		}
	}
	if wordnet {
		for _, r := range related(w) {
			vote(r, wordnetWeight)
		}
	}
	best, second := 0, -1
	for i := 1; i < len(votes); i++ {
		if votes[i] > votes[best] {
			best, second = i, best
		} else if second < 0 || votes[i] > votes[second] {
			second = i
		}
	}
	if votes[best] == 0 || votes[best] == votes[second] {
		return 0
	}
	return 1 << best
}

// toolIntent is the kinds of action a tool's name says, or when its name
// says none, the first word of its description. A tool an upstream marks
// read-only only reads.
func toolIntent(t *Tool, name []string, first string) intent {
	if ro := t.Annotations.ReadOnly; ro != nil && *ro {
		return intentRead
	}
	var k intent
	for _, w := range name {
		k |= wordIntent(w, false)
	}
	if k == 0 {
		for run := range alnumRuns(first) {
			if w := strings.ToLower(run); !stopwords[w] {
				k = wordIntent(stem(w), false)
			}
			break
		}
	}
	if ro := t.Annotations.ReadOnly; ro != nil && !*ro && k == intentRead {
		k = 0 // says it writes: its name's "get" is not the whole story
	}
	return k
}

// queryIntent is the kind of action of the first of the query's first
// intentWords words that names one: the query's verb, in an imperative or
// a request ("please store ...", "can you find ..."). Words of literal
// values do not count. A verb addressed to the one asking ("tell me",
// "give us", "send me") asks to receive: it reads, unless a verb of a
// known kind follows ("help me write", "let us delete").
func queryIntent(q string) intent { return chunksIntent(splitQuery(rewriteIdioms(q))) }

// chunksIntent is queryIntent of a query split into chunks, its idioms
// rewritten.
func chunksIntent(chunks []string) intent {
	n := 0
	for i, c := range chunks {
		if n == intentWords || valueKind(c) != "" {
			break
		}
		w := plainWord(c)
		if stopwords[w] || !isASCIIWord(w) {
			continue
		}
		if i+2 < len(chunks) && plainWord(chunks[i+1]) == "to" && wordIntent(stem(plainWord(chunks[i+2])), intentWordnet) != 0 {
			continue // "I'd like to save", "try to find": the verb after "to" says
		}
		if i+2 < len(chunks) && isAsker(chunks[i+1]) {
			if k := wordIntent(stem(plainWord(chunks[i+2])), intentWordnet); k != 0 {
				continue // "help me write", "let us delete": the verb after it says
			}
			return intentRead // "tell me", "give us"
		}
		n++
		if k := wordIntent(stem(w), intentWordnet); k != 0 {
			return k
		}
	}
	return 0
}

// plainWord is a chunk of a query lowercased, without the marks around it.
func plainWord(c string) string { return strings.ToLower(strings.Trim(c, ",.;:!?()")) }

// isAsker reports whether a chunk is the one asking: me or us.
func isAsker(c string) bool {
	w := plainWord(c)
	return w == "me" || w == "us"
}

// conflicts reports whether a tool of kinds t is the wrong kind for a
// query of kind q.
func (q intent) conflicts(t intent) bool {
	return q != 0 && t != 0 && q&t == 0
}
