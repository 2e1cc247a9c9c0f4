package index

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Fields of a tool that the ranking weighs separately (BM25F).
const (
	fName      = iota // the tool's name split into words, its compound form, its title
	fFirst            // the description's first sentence
	fDesc             // the rest of the description
	fParamName        // parameter names, nested ones included
	fParamDesc        // parameter titles, descriptions and enum values
	fServer           // the server's name and description
	numFields
)

// Ranking parameters. Field weights say how much one occurrence of a word
// counts in each field; b is each field's length normalisation (0: none,
// 1: full). They were set on the dev queries in coarse steps; results are
// flat around them.
var (
	fieldWeight = [numFields]float64{fName: 2, fFirst: 3, fDesc: 0.7, fParamName: 0.8, fParamDesc: 0.4, fServer: 1}
	fieldB      = [numFields]float64{fName: 0.3, fFirst: 0.5, fDesc: 0.75, fParamName: 0.5, fParamDesc: 0.75, fServer: 0.3}
)

// k1 is the term-frequency saturation of BM25.
const k1 = 1.2

// lexicon is the inverted index: for each term, the tools that contain it
// with their field-weighted, length-normalised term frequency.
type lexicon struct {
	terms    map[string]*termEntry
	vocab    []vocabWord           // for typo correction: every term and spelling, by length
	vocabAt  []int32               // vocabAt[l]: the first of vocab at least l bytes long
	acronyms map[string][][]string // abbreviation → the phrases it stands for (acronym.go)
}

type termEntry struct {
	idf   float64
	core  bool // occurs in some tool's name, first sentence or server name
	named bool // occurs in some tool's name or server name
	post  []posting
}

type posting struct {
	doc  int32
	tf   float32 // Σ_f weight_f · tf_f / (1 − b_f + b_f · len_f / avglen_f)
	core bool    // the term is in the tool's name, first sentence or server
}

// vocabWord is a spelling of a term (the term itself, or a word of the
// catalog as written, lowercased: "documentation" for the term "document")
// with its letter set, a cheap filter before computing an edit distance:
// one edit changes at most two letters of the set.
type vocabWord struct {
	spelling string
	term     string
	letters  uint32
}

func letterSet(w string) uint32 {
	var m uint32
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= 'a' && c <= 'z' {
			m |= 1 << (c - 'a')
		}
	}
	return m
}

// builder tokenizes the tools' fields and collects raw postings. Words are
// looked up as written, so a word seen before costs one map lookup: no
// lowercasing, no stemming.
type builder struct {
	words   map[string]int32 // a word as written → term id, −1 for a stopword
	ids     map[string]int32 // term → id
	names   []string         // id → term
	raw     [][]rawPosting   // id → postings
	core    []bool           // id → occurs in a name, first sentence or server
	named   []bool           // id → occurs in a name or server
	seen    []int32          // id → 1 + the last tool that counted it
	slot    []int32          // id → its index in counts, for the tool in seen
	counts  []rawPosting
	lengths [][numFields]int32 // per tool
	uni     []string           // words of a non-ASCII run
	texts   map[string][]int32 // text → its term ids: descriptions repeat a lot
}

type rawPosting struct {
	doc    int32
	counts [numFields]uint16
}

func newBuilder(n int) *builder {
	return &builder{
		words: make(map[string]int32, 1<<14), ids: make(map[string]int32, 1<<13),
		lengths: make([][numFields]int32, n),
		texts:   make(map[string][]int32, 4*n),
	}
}

// word returns the term id of a word as written, −1 for a stopword.
func (bd *builder) word(raw string) int32 {
	if id, ok := bd.words[raw]; ok {
		return id
	}
	w := strings.ToLower(raw)
	id := int32(-1)
	if !stopwords[w] {
		id = bd.term(stem(w))
	}
	bd.words[strings.Clone(raw)] = id
	return id
}

// term returns the id of a term, adding it when new.
func (bd *builder) term(t string) int32 {
	if id, ok := bd.ids[t]; ok {
		return id
	}
	id := int32(len(bd.names))
	bd.ids[t] = id
	bd.names = append(bd.names, t)
	bd.raw = append(bd.raw, nil)
	bd.core = append(bd.core, false)
	bd.named = append(bd.named, false)
	bd.seen = append(bd.seen, 0)
	bd.slot = append(bd.slot, 0)
	return id
}

// each calls fn with the term id of every word of text that is not a
// stopword, as terms does, with the compounds of camel-case runs.
func (bd *builder) each(text string, compounds bool, fn func(id int32)) {
	emit := func(id int32) {
		if id >= 0 {
			fn(id)
		}
	}
	for run := range alnumRuns(text) {
		if !isASCIIRun(run) {
			bd.uni = appendUnicodeRun(bd.uni[:0], run)
			for _, w := range bd.uni {
				emit(bd.word(w))
			}
			if compounds && len(bd.uni) > 1 && !isCJK([]rune(bd.uni[0])[0]) {
				emit(bd.word(run))
			}
			continue
		}
		from := 0
		for j := 1; j < len(run); j++ {
			if asciiBoundary(run, j) {
				emit(bd.word(run[from:j]))
				from = j
			}
		}
		emit(bd.word(run[from:]))
		if compounds && from > 0 {
			emit(bd.word(run))
		}
	}
}

func isASCIIRun(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// termsOf lists the terms of text, without compounds.
func (bd *builder) termsOf(text string) []string {
	var out []string
	bd.each(text, false, func(id int32) { out = append(out, bd.names[id]) })
	return out
}

// add counts the terms of text in a field of the current tool.
func (bd *builder) add(doc int32, field int, text string) {
	if text == "" {
		return
	}
	ids, ok := bd.texts[text]
	if !ok {
		bd.each(text, true, func(id int32) { ids = append(ids, id) })
		bd.texts[text] = ids
	}
	for _, id := range ids {
		bd.count(doc, field, id)
	}
}

// count counts one term in a field of the current tool.
func (bd *builder) count(doc int32, field int, id int32) {
	if bd.seen[id] != doc+1 {
		bd.seen[id] = doc + 1
		bd.slot[id] = int32(len(bd.counts))
		bd.counts = append(bd.counts, rawPosting{doc: id})
	}
	i := bd.slot[id]
	if bd.counts[i].counts[field] < math.MaxUint16 {
		bd.counts[i].counts[field]++
	}
	bd.lengths[doc][field]++
}

// endDoc moves the current tool's counts to the postings.
func (bd *builder) endDoc(doc int32) {
	for _, c := range bd.counts {
		id := c.doc
		c.doc = doc
		bd.raw[id] = append(bd.raw[id], c)
		if c.counts[fName] > 0 || c.counts[fFirst] > 0 || c.counts[fServer] > 0 {
			bd.core[id] = true
		}
		if c.counts[fName] > 0 || c.counts[fServer] > 0 {
			bd.named[id] = true
		}
	}
	bd.counts = bd.counts[:0]
}

// buildLexicon indexes the tools' fields and fills each doc's name terms.
func buildLexicon(docs []doc, servers map[string]ServerInfo) lexicon {
	bd := newBuilder(len(docs))
	namespace := namespaceTerms(docs, bd)
	as := newAcronymSet()
	for i := range docs {
		d, doc := &docs[i], int32(i)
		t := d.tool
		name := bd.termsOf(t.Name)
		d.nameTerms = nameTerms(name, namespace[t.Server])
		if intentPenalty > 0 || intentUnknown > 0 {
			d.acts = toolIntent(t, name, d.first)
		}
		if acronymWeight > 0 {
			as.addName(d.nameTerms)
			as.addText(t.Description)
		}
		for _, n := range name {
			bd.count(doc, fName, bd.term(n))
		}
		if c := compound(t.Name); len(name) > 1 && c != "" {
			bd.count(doc, fName, bd.term(stem(c)))
		}
		bd.add(doc, fName, t.Title)
		first, rest := firstSentence(t.Description)
		bd.add(doc, fFirst, first)
		bd.add(doc, fDesc, rest)
		sd := schemaDoc{root: t.InputSchema}
		sd.eachText(t.InputSchema, 0, func(field int, text string) {
			bd.add(doc, field, text)
			if field == fParamDesc && acronymWeight > 0 {
				as.addText(text)
			}
		})
		bd.add(doc, fServer, t.Server)
		bd.add(doc, fServer, servers[t.Server].Description)
		bd.endDoc(doc)
	}
	lex := bd.finish(len(docs))
	lex.acronyms = as.finish()
	for i := range docs {
		d := &docs[i]
		d.nameIDF = make([]float32, len(d.nameTerms))
		for j, t := range d.nameTerms {
			d.nameIDF[j] = float32(lex.idf(t))
			d.nameMass += float64(d.nameIDF[j])
		}
	}
	return lex
}

// finish turns raw counts into BM25F term frequencies and idf.
func (bd *builder) finish(n int) lexicon {
	var avg [numFields]float64
	for _, l := range bd.lengths {
		for k := range numFields {
			avg[k] += float64(l[k])
		}
	}
	norms := make([][numFields]float32, n)
	for k := range numFields {
		avg[k] = max(avg[k]/float64(max(n, 1)), 1)
		for i, l := range bd.lengths {
			norms[i][k] = float32(fieldWeight[k] / (1 - fieldB[k] + fieldB[k]*float64(l[k])/avg[k]))
		}
	}
	lex := lexicon{terms: make(map[string]*termEntry, len(bd.names))}
	entries := make([]termEntry, len(bd.names))
	lex.vocab = make([]vocabWord, len(bd.names), len(bd.names)+len(bd.words)/2)
	for id, raw := range bd.raw {
		e := &entries[id]
		e.core, e.named = bd.core[id], bd.named[id]
		e.post = make([]posting, len(raw))
		for j, r := range raw {
			var tf float32
			for k := range numFields {
				tf += float32(r.counts[k]) * norms[r.doc][k]
			}
			core := r.counts[fName] > 0 || r.counts[fFirst] > 0 || r.counts[fServer] > 0
			e.post[j] = posting{doc: r.doc, tf: tf, core: core}
		}
		df := float64(len(raw))
		e.idf = math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
		term := bd.names[id]
		lex.terms[term] = e
		lex.vocab[id] = vocabWord{spelling: term, term: term, letters: letterSet(term)}
	}
	// A typo is a slip in a word as written, not in its stem: "documentaion"
	// is one edit from "documentation" and four from its term "document".
	spelled := make(map[string]bool, len(bd.words))
	for _, v := range lex.vocab {
		spelled[v.spelling] = true
	}
	for raw, id := range bd.words {
		w := strings.ToLower(raw)
		if id < 0 || spelled[w] || !isASCIIWord(w) || len(w) < 4 {
			continue
		}
		spelled[w] = true
		lex.vocab = append(lex.vocab, vocabWord{spelling: w, term: bd.names[id], letters: letterSet(w)})
	}
	// By length, so a word's repairs visit only the spellings of a length
	// within reach.
	slices.SortFunc(lex.vocab, func(a, b vocabWord) int {
		if len(a.spelling) != len(b.spelling) {
			return len(a.spelling) - len(b.spelling)
		}
		return strings.Compare(a.spelling, b.spelling)
	})
	longest := 0
	if len(lex.vocab) > 0 {
		longest = len(lex.vocab[len(lex.vocab)-1].spelling)
	}
	lex.vocabAt = make([]int32, longest+2)
	for l, i := 0, 0; l <= longest+1; l++ {
		for i < len(lex.vocab) && len(lex.vocab[i].spelling) < l {
			i++
		}
		lex.vocabAt[l] = int32(i)
	}
	return lex
}

// namespaceTerms finds, per server, the words that begin most of its tool
// names ("browser" in browser_click, browser_type, ...): they name the
// server's namespace rather than what a tool does.
func namespaceTerms(docs []doc, bd *builder) map[string]map[string]bool {
	firsts := make(map[string]map[string]int)
	tools := make(map[string]int)
	for _, d := range docs {
		s := d.tool.Server
		tools[s]++
		ws := bd.termsOf(d.tool.Name)
		if len(ws) < 2 {
			continue
		}
		if firsts[s] == nil {
			firsts[s] = make(map[string]int)
		}
		firsts[s][ws[0]]++
	}
	out := make(map[string]map[string]bool)
	for s, counts := range firsts {
		out[s] = make(map[string]bool)
		for w, c := range counts {
			if tools[s] >= 3 && 2*c >= tools[s] {
				out[s][w] = true
			}
		}
		for _, w := range bd.termsOf(s) {
			out[s][w] = true
		}
	}
	return out
}

// nameTerms are the distinct words of a tool name that say what it does.
func nameTerms(name []string, namespace map[string]bool) []string {
	var out []string
	for _, w := range name {
		if !namespace[w] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	if len(out) == 0 {
		for _, w := range name {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}
