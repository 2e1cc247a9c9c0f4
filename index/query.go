package index

import (
	"math/bits"
	"slices"
	"strings"
	"unicode"
)

// Weights of the ways a query word can match.
const (
	valueWeight = 0.3 // a word inside a literal value (a path, a URL, a quoted string, a payload)
	topicWeight = 0.5 // a word no tool name or first sentence uses
	hintWeight  = 0.5 // the kind of a literal value ("url" for https://...)
	typoWeight  = 0.7 // a vocabulary word one or two edits away from an unknown word
	splitWeight = 0.8 // the parts of an unknown compound word ("readfile" → read file)
)

// concept is one meaningful unit of a query: a word or a phrase with the
// alternatives that also match it. A tool's score for a concept is that of
// its best alternative.
type concept struct {
	alts   []alternative // alts[0] is the query's own word or phrase
	weight float64
	// idf is the concept's weight in BM25, shared by all its alternatives
	// so that a synonym never counts more than the word the query said: the
	// highest of the alternatives' (mean) idf times their weight.
	idf float64
}

// parseQuery splits a query into concepts. Literal values (URLs, paths,
// file names, e-mail addresses, CSS selectors, quoted strings, numbers) say
// little about which tool is wanted: their words count less, and their kind
// counts as a hint. Known phrases and words get their synonyms; unknown
// words get close vocabulary words and, when they are compounds, their parts.
//
// It also returns the kind of action the query asks for (intent.go).
func (lex *lexicon) parseQuery(q string) ([]concept, intent) {
	q = rewriteIdioms(q)
	var cs []concept
	var plain []unit
	flush := func() {
		cs = append(cs, lex.phraseConcepts(plain, 1)...)
		plain = plain[:0]
	}
	hinted := make(map[string]bool)
	chunks := splitQuery(q)
	act := chunksIntent(chunks)
	payload := payloadStart(chunks)
	kinds := make([]string, len(chunks))
	numbers := 0
	for i, c := range chunks {
		kinds[i] = valueKind(c)
		if kinds[i] == "number" && lex.namesSomething(c) {
			kinds[i] = "" // "12306" is a server, not a quantity
		}
		if kinds[i] == "number" || mathExpr(c) {
			numbers++
		}
	}
	for i, chunk := range chunks {
		kind := kinds[i]
		if mathExpr(chunk) || kind == "number" && (numbers >= 2 || strings.Contains(chunk, "%")) {
			kind = "math"
		}
		if kind == "" && i >= payload {
			kind = "payload"
		}
		if kind == "" {
			plain = appendUnits(plain, chunk)
			continue
		}
		flush()
		if kind != "number" && kind != "math" {
			cs = append(cs, lex.phraseConcepts(appendUnits(nil, chunk), valueWeight)...)
		}
		for _, h := range valueHints[kind] {
			if !hinted[h] {
				hinted[h] = true
				cs = append(cs, lex.concept([]string{stem(h)}, h, hintWeight))
			}
		}
	}
	flush()
	return mergeConcepts(cs), act
}

// namesSomething reports whether a chunk that looks like a number is a
// word of some tool's name or server name as it stands ("12306", "1password").
func (lex *lexicon) namesSomething(chunk string) bool {
	c := strings.Trim(chunk, ",;:!?()")
	e := lex.terms[strings.ToLower(c)]
	return e != nil && e.named
}

// unit is a word of a query, or a run written in camel case ("GitHub",
// "getFileInfo") with its parts.
type unit struct {
	word  string
	parts []string // stopwords left out
}

// appendUnits appends the units of a chunk of a query, without stopwords.
func appendUnits(out []unit, chunk string) []unit {
	for run := range alnumRuns(chunk) {
		parts := appendRun(nil, run)
		if len(parts) > 1 && !isCJK([]rune(parts[0])[0]) {
			u := unit{word: strings.ToLower(run)}
			for _, p := range parts {
				if !stopwords[p] {
					u.parts = append(u.parts, p)
				}
			}
			out = append(out, u)
			continue
		}
		for _, p := range parts {
			if !stopwords[p] {
				out = append(out, unit{word: p})
			}
		}
	}
	return out
}

// payloadStart is the index of the first chunk after a colon that ends a
// chunk ("... with the content: hello world"): what follows is data for the
// tool rather than a description of it. Without such a colon, or when
// fewer than two words come before it, it is len(chunks).
func payloadStart(chunks []string) int {
	words := 0
	for i, c := range chunks {
		if valueKind(c) == "" {
			words++
		}
		if strings.HasSuffix(c, ":") && words >= 2 {
			return i + 1
		}
	}
	return len(chunks)
}

// valueHints are the words that stand for a literal value of a kind.
var valueHints = map[string][]string{
	"url":      {"url"},
	"path":     {"path"},
	"file":     {"file"},
	"email":    {"email"},
	"selector": {"selector"},
	"math":     {"calculate"},
}

// mathExpr reports whether a chunk is arithmetic: digits with an operator
// and no letters ("3*4", "2^10", "17%"). A query with such a chunk, or
// with two numbers, hints at calculating.
func mathExpr(chunk string) bool {
	digits, ops := 0, 0
	for _, r := range chunk {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("+-*/^×÷%=()", r):
			ops++
		case strings.ContainsRune(".,", r):
		default:
			return false
		}
	}
	return digits > 0 && ops > 0 && !(ops == 1 && (chunk[0] == '-' || chunk[0] == '+'))
}

// splitQuery splits a query at white space, keeping quoted strings whole.
func splitQuery(q string) []string {
	var out []string
	var b strings.Builder
	var quote rune
	for _, r := range q {
		switch {
		case quote != 0:
			b.WriteRune(r)
			if r == quote {
				quote = 0
				out = append(out, b.String())
				b.Reset()
			}
		case (r == '\'' || r == '"' || r == '`' || r == '“' || r == '‘') && b.Len() == 0:
			quote = r
			switch r {
			case '“':
				quote = '”'
			case '‘':
				quote = '’'
			}
			b.WriteRune(r)
		case unicode.IsSpace(r):
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// valueKind classifies a chunk of a query as a literal value, or "".
func valueKind(chunk string) string {
	c := strings.TrimRight(chunk, ",;:!?)")
	c = strings.TrimLeft(c, "(")
	if c == "" {
		return ""
	}
	first, last := rune(c[0]), c[len(c)-1]
	switch {
	case first == '\'' || first == '"' || first == '`' || strings.HasPrefix(c, "“") || strings.HasPrefix(c, "‘"):
		if len([]rune(c)) > 2 && (last == byte(first) || strings.HasSuffix(c, "”") || strings.HasSuffix(c, "’")) {
			return "quoted"
		}
	case strings.Contains(c, "://") || strings.HasPrefix(c, "www."):
		return "url"
	case strings.Contains(c, "@") && strings.Contains(c[strings.Index(c, "@"):], "."):
		return "email"
	case first == '/' || first == '~' || strings.HasPrefix(c, "./") || strings.HasPrefix(c, "../"):
		return "path"
	case (first == '#' || first == '.') && len(c) > 1 && isIdentStart(rune(c[1])):
		return "selector"
	case isNumber(c):
		return "number"
	}
	c = strings.TrimRight(c, ".")
	if strings.Contains(c, "/") && !strings.Contains(c, " ") && strings.Count(c, "/") >= 2 {
		return "path"
	}
	if dot := strings.LastIndexByte(c, '.'); dot > 0 && dot < len(c)-1 {
		ext := strings.ToLower(c[dot+1:])
		switch {
		case domainSuffix[ext]:
			return "url"
		case fileExt[ext]:
			return "file"
		}
	}
	return ""
}

var domainSuffix = setOf(`com org net io dev ai app co uk cn jp de fr ru in br au ca us eu gov edu info biz me tv`)

var fileExt = setOf(`txt md py js ts go rs java c h cpp json yaml yml toml xml csv tsv pdf docx doc xlsx xls
	pptx ppt png jpg jpeg gif svg webp mp3 mp4 wav html htm css sql sh log zip tar gz ini cfg lock`)

func isIdentStart(r rune) bool { return r == '_' || r == '-' || unicode.IsLetter(r) }

func isNumber(s string) bool {
	digits := 0
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("+-.,%$€£¥:", r):
		default:
			return false
		}
	}
	return digits > 0
}

// phraseConcepts turns a run of units into concepts, joining the longest
// phrases of single words the synonym table knows.
func (lex *lexicon) phraseConcepts(us []unit, weight float64) []concept {
	syn := synonyms()
	ws := make([]string, len(us))
	for i, u := range us {
		ws[i] = stem(u.word)
	}
	var out []concept
	for i := 0; i < len(ws); {
		if us[i].parts != nil {
			out = append(out, lex.compoundConcept(ws[i], us[i], weight))
			i++
			continue
		}
		n := 1
		for l := min(maxPhrase, len(ws)-i); l > 1; l-- {
			if _, ok := syn[strings.Join(ws[i:i+l], " ")]; ok && !slices.ContainsFunc(us[i:i+l], isCompound) {
				n = l
				break
			}
		}
		out = append(out, lex.concept(ws[i:i+n], us[i].word, weight))
		i += n
	}
	return out
}

func isCompound(u unit) bool { return u.parts != nil }

// compoundConcept is the concept of a camel-case run: the run as one word,
// or its parts.
func (lex *lexicon) compoundConcept(stemmed string, u unit, weight float64) concept {
	c := lex.concept([]string{stemmed}, u.word, weight)
	if len(u.parts) == 0 {
		return c
	}
	parts := make([]string, len(u.parts))
	for i, p := range u.parts {
		parts[i] = stem(p)
	}
	c.alts = append(c.alts, alternative{terms: parts, weight: sameWeight})
	return c
}

// concept builds the concept of a word or phrase (stemmed) with its
// alternatives; raw is the first word as the query spelled it.
func (lex *lexicon) concept(phrase []string, raw string, weight float64) concept {
	own := append([]string(nil), phrase...)
	c := concept{alts: []alternative{{terms: own, weight: 1}}, weight: weight}
	key := strings.Join(own, " ")
	c.alts = append(c.alts, synonyms()[key]...) // copies: the table is shared
	if len(own) == 1 {
		c.alts = lex.appendRelated(c.alts, key)
		c.alts = lex.appendAcronyms(c.alts, key)
	}
	if len(own) == 1 && lex.terms[key] == nil && weight == 1 {
		c.alts = append(c.alts, lex.repairs(key, raw)...)
	}
	if !lex.describes(own) {
		c.weight *= topicWeight
	}
	c.idf = lex.phraseIDF(own)
	for _, a := range c.alts[1:] {
		c.idf = max(c.idf, a.weight*lex.phraseIDF(a.terms))
	}
	if c.idf == 0 {
		c.idf = unknownIDF
	}
	return c
}

// phraseIDF is the mean idf of the words of a phrase the index knows, 0
// when it knows none.
func (lex *lexicon) phraseIDF(ts []string) float64 {
	var sum float64
	n := 0
	for _, t := range ts {
		if e := lex.terms[t]; e != nil {
			sum += e.idf
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// describes reports whether the words, where the index knows them, occur in
// some tool's name, first sentence or server: words that only occur deep in descriptions (the topic of a
// request, "global warming") say little about which tool to use.
func (lex *lexicon) describes(ts []string) bool {
	for _, t := range ts {
		if e := lex.terms[t]; e != nil && !e.core {
			return false
		}
	}
	return true
}

// unknownIDF is the idf of a concept the index does not know at all: it
// still lowers the share of a perfect score the other concepts can reach.
const unknownIDF = 1.0

// repairs proposes vocabulary words for a word the index does not know:
// the parts of a compound ("readfile" → read file, each part known) and
// the terms of words one edit away (two for long words), so typos still
// match. The word is compared as the query spelled it with the catalog's
// words as written, and stemmed with the terms.
func (lex *lexicon) repairs(w, raw string) []alternative {
	var out []alternative
	if parts := lex.splitCompound(raw); parts != nil {
		out = append(out, alternative{terms: parts, weight: splitWeight})
	}
	if len(w) < 4 || !isASCIIWord(w) {
		return out
	}
	if raw = strings.ToLower(raw); !isASCIIWord(raw) {
		raw = w
	}
	limit := func(s string) int {
		if len(s) >= 8 {
			return 2
		}
		return 1
	}
	var ed editBuf
	var seen map[string]bool
	try := func(s string, maxDist int) {
		ls := letterSet(s)
		for _, v := range lex.spellings(len(s)-maxDist, len(s)+maxDist) {
			if seen[v.term] || bits.OnesCount32(v.letters^ls) > 2*maxDist || ed.distance(s, v.spelling, maxDist) > maxDist {
				continue
			}
			if seen == nil {
				seen = make(map[string]bool)
			}
			seen[v.term] = true
			out = append(out, alternative{terms: []string{v.term}, weight: typoWeight})
		}
	}
	try(w, limit(w))
	if raw != w {
		try(raw, limit(raw))
	}
	return out
}

// spellings are the vocabulary's spellings from lo to hi bytes long.
func (lex *lexicon) spellings(lo, hi int) []vocabWord {
	last := len(lex.vocabAt) - 1
	lo, hi = min(max(lo, 0), last), min(max(hi+1, 0), last)
	return lex.vocab[lex.vocabAt[lo]:lex.vocabAt[hi]]
}

// splitCompound splits a word into two or three known words of at least
// three letters, preferring the split with the longest first part.
func (lex *lexicon) splitCompound(w string) []string {
	if len(w) < 6 || !isASCIIWord(w) {
		return nil
	}
	var best []string
	var try func(rest string, acc []string) bool
	try = func(rest string, acc []string) bool {
		if len(acc) > 0 && lex.knownWord(rest) {
			best = append(append([]string(nil), acc...), stem(rest))
			return true
		}
		if len(acc) == 2 {
			return false
		}
		for i := len(rest) - 3; i >= 3; i-- {
			if lex.knownWord(rest[:i]) && try(rest[i:], append(acc, stem(rest[:i]))) {
				return true
			}
		}
		return false
	}
	try(w, nil)
	return best
}

// knownWord reports whether a word, stemmed, is in the vocabulary and is
// not a stopword.
func (lex *lexicon) knownWord(w string) bool {
	return len(w) >= 3 && !stopwords[w] && lex.terms[stem(w)] != nil
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// editDistance is the Damerau-Levenshtein (optimal string alignment)
// distance of two strings in bytes, or a value above limit once it must
// exceed it.
func editDistance(a, b string, limit int) int {
	var ed editBuf
	return ed.distance(a, b, limit)
}

// editBuf holds the rows of editDistance for reuse.
type editBuf struct{ prev2, prev, cur []int }

func (e *editBuf) distance(a, b string, limit int) int {
	if abs(len(a)-len(b)) > limit {
		return limit + 1
	}
	n := len(b) + 1
	if cap(e.cur) < n {
		e.prev2, e.prev, e.cur = make([]int, n), make([]int, n), make([]int, n)
	}
	prev2, prev, cur := e.prev2[:n], e.prev[:n], e.cur[:n]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j < n; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[n-1]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// mergeConcepts drops repeated concepts (the same word said twice),
// keeping the higher weight.
func mergeConcepts(cs []concept) []concept {
	out := cs[:0]
	seen := make(map[string]int)
	for _, c := range cs {
		key := strings.Join(c.alts[0].terms, " ")
		if i, ok := seen[key]; ok {
			out[i].weight = max(out[i].weight, c.weight)
			continue
		}
		seen[key] = len(out)
		out = append(out, c)
	}
	return out
}

// appendRelated appends the words WordNet relates to a query word that
// some tool uses and no alternative has yet, at wordnetWeight.
func (lex *lexicon) appendRelated(alts []alternative, w string) []alternative {
	if wordnetWeight == 0 {
		return alts
	}
	rel := related(w)
	n := len(alts)
	for _, r := range rel {
		if lex.terms[r] != nil && !hasAlt(alts[:n], r) {
			if len(alts) == n {
				alts = slices.Grow(alts, len(rel))
			}
			alts = append(alts, alternative{terms: []string{r}, weight: wordnetWeight})
		}
	}
	return alts
}

// hasAlt reports whether an alternative is the single term t.
func hasAlt(alts []alternative, t string) bool {
	for _, a := range alts {
		if len(a.terms) == 1 && a.terms[0] == t {
			return true
		}
	}
	return false
}
