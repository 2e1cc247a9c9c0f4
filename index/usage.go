package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/toolfold/toolfold/internal/atomicfile"
)

// Usage is what a deployment learned from use: which tools scripts called
// after a search, keyed by the search's words. A search with similar words
// ranks those tools higher (see SearchOptions.Usage). It holds index terms
// only (stemmed words the catalog's own descriptions use, never literal
// values of the query, never arguments of the call), at most a fixed number
// of (term, tool) pairs, the least recently used dropped first. Safe for
// concurrent use.
type Usage struct {
	mu    sync.RWMutex
	pairs map[string]map[string]*usagePair // term → qualified tool name → pair
	n     int                              // number of pairs
	max   int
	seq   uint64
}

type usagePair struct {
	Count float64 `json:"n"`
	Seq   uint64  `json:"seq"` // when last strengthened: the lowest goes first when full
}

// Bounds of learning.
const (
	// DefaultUsagePairs is the default bound on (term, tool) pairs.
	DefaultUsagePairs = 20000
	usageCountCap     = 4       // repeated use beyond this adds nothing
	usageTermTools    = 32      // tools one term points at, at most
	usageTerms        = 12      // terms of one query that are learned
	learnWeight       = 0.8     // × the learned share of the query (see Index.learned)
	usageFileMax      = 8 << 20 // bytes of a usage file read at most
)

// NewUsage returns an empty store of at most maxPairs (term, tool) pairs;
// maxPairs <= 0 means DefaultUsagePairs.
func NewUsage(maxPairs int) *Usage {
	if maxPairs <= 0 {
		maxPairs = DefaultUsagePairs
	}
	return &Usage{pairs: make(map[string]map[string]*usagePair), max: maxPairs}
}

// Len is the number of (term, tool) pairs held.
func (u *Usage) Len() int {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.n
}

// LearnTerms are the words of a query that learning keeps: the terms of its
// plain words (idioms rewritten, stopwords dropped, stemmed) that the
// index knows, without literal values (paths, URLs, quoted strings,
// numbers) or what follows a payload colon, distinct, at most usageTerms.
func (ix *Index) LearnTerms(query string) []string {
	q := rewriteIdioms(query)
	chunks := splitQuery(q)
	payload := payloadStart(chunks)
	var out []string
	for i, c := range chunks {
		if i >= payload || valueKind(c) != "" || mathExpr(c) {
			continue
		}
		for _, t := range terms(c) {
			if ix.lex.terms[t] != nil && !slices.Contains(out, t) && len(out) < usageTerms {
				out = append(out, t)
			}
		}
	}
	return out
}

// Record learns that the tool qname was called after a search for query.
// It reports whether anything was learned (a query with no known words
// teaches nothing).
func (u *Usage) Record(ix *Index, query, qname string) bool {
	ts := ix.LearnTerms(query)
	if len(ts) == 0 || qname == "" {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, t := range ts {
		u.seq++
		m := u.pairs[t]
		if m == nil {
			m = make(map[string]*usagePair)
			u.pairs[t] = m
		}
		p := m[qname]
		if p == nil {
			if len(m) >= usageTermTools {
				u.evictTermLocked(t)
			} else if u.n >= u.max {
				u.evictLocked()
			}
			if u.pairs[t] == nil { // the eviction emptied it
				u.pairs[t] = m
			}
			p = &usagePair{}
			m[qname] = p
			u.n++
		}
		p.Count = min(p.Count+1, usageCountCap)
		p.Seq = u.seq
	}
	return true
}

// evictTermLocked drops the least recently strengthened tool of a term.
func (u *Usage) evictTermLocked(t string) {
	var tool string
	var low uint64 = ^uint64(0)
	for q, p := range u.pairs[t] {
		if p.Seq < low {
			tool, low = q, p.Seq
		}
	}
	delete(u.pairs[t], tool)
	u.n--
}

// evictLocked drops the least recently strengthened pair.
func (u *Usage) evictLocked() {
	var term, tool string
	var low uint64 = ^uint64(0)
	for t, m := range u.pairs {
		for q, p := range m {
			if p.Seq < low {
				term, tool, low = t, q, p.Seq
			}
		}
	}
	if term == "" {
		return
	}
	delete(u.pairs[term], tool)
	if len(u.pairs[term]) == 0 {
		delete(u.pairs, term)
	}
	u.n--
}

// strength is how much a term points at a tool, in [0, 1): a half for
// one use, three quarters for two, ...
func (u *Usage) strength(m map[string]*usagePair, qname string) float64 {
	if p := m[qname]; p != nil {
		return 1 - math.Pow(0.5, p.Count)
	}
	return 0
}

// usageFile is the JSON form of a Usage.
type usageFile struct {
	Version int                              `json:"version"`
	Pairs   map[string]map[string]*usagePair `json:"pairs"`
}

// WriteTo writes the store as JSON.
func (u *Usage) WriteTo(w io.Writer) (int64, error) {
	u.mu.RLock()
	data, err := json.Marshal(usageFile{Version: 1, Pairs: u.pairs})
	u.mu.RUnlock()
	if err != nil {
		return 0, err
	}
	n, err := w.Write(append(data, '\n'))
	return int64(n), err
}

// Save writes the store to path atomically: a temporary file in the same
// directory, synced, then renamed over path. The directory is created.
func (u *Usage) Save(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save search usage: %w", err)
	}
	err := atomicfile.WriteFunc(path, 0o600, func(w io.Writer) error {
		_, err := u.WriteTo(w)
		return err
	})
	if err != nil {
		return fmt.Errorf("save search usage: %w", err)
	}
	return nil
}

// LoadUsage reads a store saved by Save, bounded to maxPairs pairs. A
// missing file gives an empty store and no error. A file that cannot be
// parsed gives an empty store and an error saying so: the caller warns and
// carries on, and the next Save replaces the file.
func LoadUsage(path string, maxPairs int) (*Usage, error) {
	u := NewUsage(maxPairs)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return u, nil
	}
	if err != nil {
		return u, fmt.Errorf("read search usage %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, usageFileMax+1))
	if err != nil {
		return u, fmt.Errorf("read search usage %s: %w", path, err)
	}
	if len(data) > usageFileMax {
		return u, fmt.Errorf("search usage %s is over %d bytes; starting afresh (delete it to silence this)", path, usageFileMax)
	}
	var uf usageFile
	if err := json.Unmarshal(data, &uf); err != nil || uf.Version != 1 {
		if err == nil {
			err = fmt.Errorf("version %d, want 1", uf.Version)
		}
		return u, fmt.Errorf("search usage %s is unreadable (%v); starting afresh", path, err)
	}
	u.load(uf.Pairs)
	return u, nil
}

// load copies valid pairs in, most recent first, up to the bound.
func (u *Usage) load(pairs map[string]map[string]*usagePair) {
	type entry struct {
		term, tool string
		p          usagePair
	}
	var all []entry
	for t, m := range pairs {
		for q, p := range m {
			if p != nil && t != "" && q != "" && p.Count > 0 && !strings.ContainsAny(t, " \n") {
				all = append(all, entry{t, q, usagePair{Count: min(p.Count, usageCountCap), Seq: p.Seq}})
			}
		}
	}
	slices.SortFunc(all, func(a, b entry) int {
		switch {
		case a.p.Seq > b.p.Seq:
			return -1
		case a.p.Seq < b.p.Seq:
			return 1
		}
		return strings.Compare(a.term+"\x00"+a.tool, b.term+"\x00"+b.tool)
	})
	for _, e := range all[:min(len(all), u.max)] {
		if u.pairs[e.term] == nil {
			u.pairs[e.term] = make(map[string]*usagePair)
		}
		p := e.p
		u.pairs[e.term][e.tool] = &p
		u.n++
		u.seq = max(u.seq, p.Seq)
	}
}
