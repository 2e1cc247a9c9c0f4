// Package learn is what search_tools learns in a deployment from use:
// which tools scripts call after a search (index.Usage, saved beside the
// config or in the shared store) and the shapes of tool results
// (index.Shapes, in memory). Each client session keeps its own Recent
// searches; the Learner's mutex guards them.
package learn

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/store"
)

// Learner is what search_tools learns in this deployment: which tools
// scripts call after a search (index.Usage, persisted beside the config
// unless search.learn is false) and the shapes of tool results
// (index.Shapes, in memory). Every method is safe on a nil *Learner.
type Learner struct {
	usage  *index.Usage  // nil when learning is off
	shapes *index.Shapes // always
	log    *slog.Logger
	// Where usage is saved: st under key; nil when it is kept in memory
	// only. shared: other replicas save there too, so a save merges what
	// they learned first.
	st     store.Store
	key    string
	shared bool

	// mu guards these and every Recent given to the methods.
	mu     sync.Mutex
	timer  *time.Timer // a pending save
	closed bool
}

// Recent are a session's last searches and what they already taught;
// each session keeps its own, guarded by the Learner's mutex (a zero
// Recent is ready).
type Recent struct {
	queries []timedQuery
	taught  map[[2]string]bool // (query, tool)
}

type timedQuery struct {
	q  string
	at time.Time
}

// Bounds of what a learner keeps about sessions.
const (
	RecentQueries  = 4                // recent searches per session
	learnWindow    = 15 * time.Minute // a call this long after a search no longer counts
	learnTaughtMax = 256              // (query, tool) pairs remembered per session
	learnSaveDelay = 2 * time.Second  // saves are batched
)

// UsageKey is where replicas sharing a store (store: redis://…) keep
// what search learned.
const UsageKey = "search/usage.json"

// New loads what was learned before: from the shared store when the
// config names one (st), else from the usage file. A value that cannot be
// read is logged and replaced by the next save.
func New(cfg *config.Config, st store.Store, log *slog.Logger) *Learner {
	l := &Learner{shapes: index.NewShapes(), log: log}
	if cfg == nil || cfg.Search.NoLearn {
		return l
	}
	l.usage = index.NewUsage(cfg.Search.MaxPairs)
	switch path := cfg.UsageFile(); {
	case cfg.Store.URL != "" && st != nil:
		l.st, l.key, l.shared = st, UsageKey, true
	case path != "":
		fs, err := store.Files(filepath.Dir(path))
		if err != nil {
			log.Warn("search learning: "+err.Error(), "component", "search")
			return l
		}
		l.st, l.key = fs, filepath.Base(path)
	default:
		return l
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	data, err := l.st.Get(ctx, l.key)
	if err == nil {
		err = l.usage.Merge(data)
	}
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		log.Warn("search learning: "+err.Error()+"; starting afresh", "component", "search")
	}
	return l
}

// Searched notes a search_tools query of a client session (r: its
// searches; nil outside a session).
func (l *Learner) Searched(r *Recent, query string) {
	if l == nil || l.usage == nil || r == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if r.taught == nil {
		r.taught = make(map[[2]string]bool)
	}
	if len(r.queries) == RecentQueries {
		r.queries = r.queries[1:]
	}
	r.queries = append(r.queries, timedQuery{q: query, at: time.Now()})
}

// Called learns from a successful call of tool qname by a script of a
// session (rs: its searches; nil outside a session): the latest search of the session or of the script itself
// (scriptQueries, oldest first) now points at the tool, and so does an
// earlier recent search that found it.
func (l *Learner) Called(ix *index.Index, rs *Recent, scriptQueries []string, qname string) {
	if l == nil || l.usage == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var qs []string
	var r *Recent
	if rs != nil && rs.taught != nil {
		r = rs
		for _, q := range r.queries {
			if time.Since(q.at) < learnWindow {
				qs = append(qs, q.q)
			}
		}
	}
	qs = append(qs, scriptQueries...)
	learned := false
	seen := make(map[string]bool, len(qs))
	for i := len(qs) - 1; i >= 0; i-- { // the latest first
		q := qs[i]
		k := [2]string{q, qname}
		// A query asked again, or taught this tool already, is not searched
		// again: each finds is a whole search, in the script's tool call.
		if seen[q] || r != nil && r.taught[k] {
			continue
		}
		seen[q] = true
		// The latest search led to the call; an earlier one counts only
		// if it found the tool.
		if i < len(qs)-1 && !finds(ix, q, qname) {
			continue
		}
		if r != nil {
			if len(r.taught) >= learnTaughtMax {
				clear(r.taught)
			}
			r.taught[k] = true
		}
		learned = l.usage.Record(ix, q, qname) || learned
	}
	if learned {
		l.scheduleSaveLocked()
	}
}

// Observed merges the shape of a tool's result.
func (l *Learner) Observed(qname string, v json.RawMessage) {
	if l != nil {
		l.shapes.Observe(qname, v)
	}
}

func (l *Learner) scheduleSaveLocked() {
	if l.st == nil || l.timer != nil || l.closed {
		return
	}
	l.timer = time.AfterFunc(learnSaveDelay, func() {
		l.mu.Lock()
		l.timer = nil
		l.mu.Unlock()
		l.save()
	})
}

func (l *Learner) save() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if l.shared { // keep what the other replicas learned since
		if data, err := l.st.Get(ctx, l.key); err == nil {
			_ = l.usage.Merge(data)
		}
	}
	data, err := json.Marshal(l.usage)
	if err == nil {
		err = l.st.Set(ctx, l.key, append(data, '\n'))
	}
	if err != nil {
		l.log.Warn("search learning: saving: "+err.Error(), "component", "search")
	}
}

// Close saves what is pending and stops saving.
func (l *Learner) Close() {
	if l == nil {
		return
	}
	l.mu.Lock()
	pending := l.timer != nil && l.timer.Stop()
	l.timer, l.closed = nil, true
	l.mu.Unlock()
	if pending {
		l.save()
	}
}

// Usage is the Usage searches rank with, nil when learning is off.
func (l *Learner) Usage() *index.Usage {
	if l == nil {
		return nil
	}
	return l.usage
}

// Shapes are the result shapes seen so far.
func (l *Learner) Shapes() *index.Shapes {
	if l == nil {
		return nil
	}
	return l.shapes
}

// learnDepth is how deep an earlier search must have found a tool for a
// call to teach it.
const learnDepth = 20

// findsProbe, when set (tests), is told each query finds searches.
var findsProbe func(query string)

func finds(ix *index.Index, query, qname string) bool {
	if findsProbe != nil {
		findsProbe(query)
	}
	for _, h := range ix.Search(query, index.SearchOptions{Limit: learnDepth}) {
		if h.QName == qname {
			return true
		}
	}
	return false
}
