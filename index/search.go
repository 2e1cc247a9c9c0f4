package index

import (
	"slices"
	"strings"
	"sync"
)

// SearchOptions narrow a search. The zero value is useful.
type SearchOptions struct {
	Limit  int    // hits returned; 0 means 10; at most 50
	Server string // only this server's tools (its name or identifier); "" for all
	// Usage, when not nil, ranks higher the tools scripts called after
	// searches with similar words in this deployment.
	Usage *Usage
}

// Hit is one search result.
type Hit struct {
	Tool  *Tool  // the tool as indexed; do not modify
	QName string // qualified name "server.tool"
	Ident string // script path "server_ident.tool_ident"
	Score float64
}

const (
	defaultLimit = 10
	maxLimit     = 50
)

// Search ranks the tools for a query, best first. An empty query lists the
// tools (of the server filter, if any) by name. Only tools that match the
// query at all are returned, so a search can return no hits.
func (ix *Index) Search(query string, opts SearchOptions) []Hit {
	limit := opts.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	return ix.search(query, opts.Server, min(limit, maxLimit), opts.Usage)
}

// search is Search without the cap on limit (evaluation ranks 100 deep).
func (ix *Index) search(query, server string, limit int, u *Usage) []Hit {
	if server != "" {
		if _, ok := ix.serverIDs[server]; !ok {
			server = ix.serverByIdent(server)
			if server == "" {
				return nil
			}
		}
	}
	if strings.TrimSpace(query) == "" {
		return ix.list(server, limit)
	}
	var cands []candidate
	if steps := splitSteps(query); len(steps) > 1 {
		cands = ix.rankSteps(query, steps, server, limit, u)
	} else {
		cands = ix.rank(query, server, limit, u)
	}
	hits := make([]Hit, len(cands))
	for i, c := range cands {
		hits[i] = ix.hit(int(c.doc), c.score)
	}
	return hits
}

// rank scores every tool for one query and returns the best limit.
func (ix *Index) rank(query, server string, limit int, u *Usage) []candidate {
	sc := getScratch(len(ix.docs))
	defer putScratch(sc)
	cs, act := ix.lex.parseQuery(query)
	ix.lex.score(cs, sc)
	if identLike(query) {
		ix.fuzzy(query, sc)
	}
	if u != nil {
		ix.learned(cs, u, sc)
	}
	return ix.rerank(cs, act, sc, server, limit)
}

// list returns the first tools in index order (server, then tool name).
func (ix *Index) list(server string, limit int) []Hit {
	var hits []Hit
	for i := range ix.docs {
		if len(hits) == limit {
			break
		}
		if server == "" || ix.docs[i].tool.Server == server {
			hits = append(hits, ix.hit(i, 0))
		}
	}
	return hits
}

// serverByIdent is the server whose script identifier is id, or "".
func (ix *Index) serverByIdent(id string) string {
	for name, sid := range ix.serverIDs {
		if sid == id {
			return name
		}
	}
	return ""
}

// scratch holds per-query accumulators, one slot per tool, reused through
// a pool. A zero slot is untouched; touched lists the slots to reset.
type scratch struct {
	total, cover, core, best, bestCore, acc, fuzzy []float32
	touched, bestT, accT                           []int32
}

var scratchPool sync.Pool

func getScratch(n int) *scratch {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil || len(sc.total) < n {
		return &scratch{
			total: make([]float32, n), cover: make([]float32, n),
			best: make([]float32, n), acc: make([]float32, n), fuzzy: make([]float32, n),
			core: make([]float32, n), bestCore: make([]float32, n),
		}
	}
	return sc
}

func putScratch(sc *scratch) {
	for _, d := range sc.touched {
		sc.total[d], sc.cover[d], sc.core[d], sc.fuzzy[d] = 0, 0, 0, 0
	}
	sc.touched = sc.touched[:0]
	scratchPool.Put(sc)
}

// score computes each tool's BM25F score: for every concept, the score of
// its best alternative, weighted, summed over the concepts. cover sums the
// idf of the concepts a tool matches; core the same for matches in its
// name, first sentence or server, times the matching alternative's weight.
func (lex *lexicon) score(cs []concept, sc *scratch) {
	for _, c := range cs {
		for _, a := range c.alts {
			for _, t := range a.terms {
				e := lex.terms[t]
				if e == nil {
					continue
				}
				// A phrase counts as one word: the mean of its words.
				w := float32(a.weight * c.idf * (k1 + 1) / float64(len(a.terms)))
				for _, p := range e.post {
					if sc.acc[p.doc] == 0 {
						sc.accT = append(sc.accT, p.doc)
					}
					sc.acc[p.doc] += w * p.tf / (p.tf + k1)
					if p.core {
						sc.bestCore[p.doc] = max(sc.bestCore[p.doc], float32(a.weight))
					}
				}
			}
			for _, d := range sc.accT {
				if sc.best[d] == 0 {
					sc.bestT = append(sc.bestT, d)
				}
				sc.best[d] = max(sc.best[d], sc.acc[d])
				sc.acc[d] = 0
			}
			sc.accT = sc.accT[:0]
		}
		for _, d := range sc.bestT {
			if sc.total[d] == 0 {
				sc.touched = append(sc.touched, d)
			}
			sc.total[d] += float32(c.weight) * sc.best[d]
			sc.cover[d] += float32(c.weight * c.idf)
			sc.core[d] += float32(c.weight*c.idf) * sc.bestCore[d]
			sc.best[d], sc.bestCore[d] = 0, 0
		}
		sc.bestT = sc.bestT[:0]
	}
}

// candidate is a tool with its final score.
type candidate struct {
	doc   int32
	score float64
}

// Weights of the final score's parts (see doc.go).
const (
	nameBonus = 0.2 // × the share of the tool name the query says × the share of the query matched
	coreBonus = 0.3 // × the share of the query matched in the tool's name, first sentence or server
)

// rerank turns the lexical scores of the matching tools into final scores
// and returns the best limit, best first.
func (ix *Index) rerank(cs []concept, act intent, sc *scratch, server string, limit int) []candidate {
	var perfect, mass float64
	qterms := make(map[string]float64)
	for _, c := range cs {
		perfect += c.weight * c.idf * (k1 + 1)
		mass += c.weight * c.idf
		for _, a := range c.alts {
			for _, t := range a.terms {
				qterms[t] = max(qterms[t], a.weight*c.weight)
			}
		}
	}
	if perfect == 0 {
		perfect, mass = 1, 1
	}
	top := topK{k: limit}
	for _, d := range sc.touched {
		doc := &ix.docs[d]
		if server != "" && doc.tool.Server != server {
			continue
		}
		lex := float64(sc.total[d]) / perfect
		cover := float64(sc.cover[d]) / mass
		core := float64(sc.core[d]) / mass
		var named float64
		for j, t := range doc.nameTerms {
			if w, ok := qterms[t]; ok {
				named += w * float64(doc.nameIDF[j])
			}
		}
		if doc.nameMass > 0 {
			named /= doc.nameMass
		}
		score := lex + nameBonus*named*cover + coreBonus*core + float64(sc.fuzzy[d])
		if act.conflicts(doc.acts) {
			score *= 1 - intentPenalty
		} else if act != 0 && doc.acts == 0 {
			score *= 1 - intentUnknown
		} else if act == 0 && doc.acts == intentDelete {
			score *= 1 - intentUnasked
		}
		top.push(candidate{doc: d, score: score})
	}
	return top.sorted()
}

// topK keeps the k best candidates seen, in a min-heap on (score, -doc).
type topK struct {
	k int
	h []candidate
}

// worse orders candidates: lower score, then later doc, is worse.
func worse(a, b candidate) bool {
	return a.score < b.score || a.score == b.score && a.doc > b.doc
}

func (t *topK) push(c candidate) {
	if t.k <= 0 {
		return
	}
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(t.h[i], t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if !worse(t.h[0], c) {
		return
	}
	t.h[0] = c
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.h) && worse(t.h[l], t.h[m]) {
			m = l
		}
		if r < len(t.h) && worse(t.h[r], t.h[m]) {
			m = r
		}
		if m == i {
			return
		}
		t.h[i], t.h[m] = t.h[m], t.h[i]
		i = m
	}
}

// sorted returns the kept candidates, best first.
func (t *topK) sorted() []candidate {
	slices.SortFunc(t.h, func(a, b candidate) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return t.h
}

// idf is a term's inverse document frequency, 0 for an unknown term.
func (lex *lexicon) idf(t string) float64 {
	if e := lex.terms[t]; e != nil {
		return e.idf
	}
	return 0
}

// learned adds to each tool's extra score (sc.fuzzy) what use taught:
// learnWeight × the share of the query (by idf, synonyms at their weight)
// whose words scripts used before calling the tool, each word's share
// scaled by how often (up to usageCountCap).
func (ix *Index) learned(cs []concept, u *Usage, sc *scratch) {
	var mass float64
	for _, c := range cs {
		mass += c.weight * c.idf
	}
	if mass == 0 {
		return
	}
	u.mu.RLock()
	defer u.mu.RUnlock()
	if u.n == 0 {
		return
	}
	gain := make(map[int32]float64)
	for _, c := range cs {
		best := make(map[int32]float64) // a concept counts once per tool: its best alternative
		for _, a := range c.alts {
			for _, t := range a.terms {
				m := u.pairs[t]
				for qname := range m {
					i, ok := ix.byName[qname]
					if !ok || ix.docs[i].qname != qname {
						continue
					}
					g := a.weight * u.strength(m, qname) / float64(len(a.terms))
					best[int32(i)] = max(best[int32(i)], g)
				}
			}
		}
		for d, g := range best {
			gain[d] += c.weight * c.idf * g
		}
	}
	for d, g := range gain {
		if sc.total[d] == 0 && sc.fuzzy[d] == 0 { // not touched yet, as in fuzzy
			sc.touched = append(sc.touched, d)
		}
		sc.fuzzy[d] += float32(learnWeight * g / mass)
	}
}
