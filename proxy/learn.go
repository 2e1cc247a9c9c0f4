package proxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/index"
)

// learner is what search_tools learns in this deployment: which tools
// scripts call after a search (index.Usage, persisted beside the config
// unless search.learn is false) and the shapes of tool results
// (index.Shapes, in memory). Every method is safe on a nil *learner.
type learner struct {
	usage  *index.Usage  // nil when learning is off
	shapes *index.Shapes // always
	path   string        // "" when usage is kept in memory only
	log    *slog.Logger

	mu       sync.Mutex
	sessions map[any]*recent // by client session
	order    []any           // oldest session first, for the bound
	timer    *time.Timer     // a pending save
	closed   bool
}

// recent are a session's last searches and what they already taught.
type recent struct {
	queries []timedQuery
	taught  map[[2]string]bool // (query, tool)
}

type timedQuery struct {
	q  string
	at time.Time
}

// Bounds of what a learner keeps about sessions.
const (
	learnSessions  = 256              // sessions remembered
	learnQueries   = 4                // recent searches per session
	learnWindow    = 15 * time.Minute // a call this long after a search no longer counts
	learnTaughtMax = 256              // (query, tool) pairs remembered per session
	learnSaveDelay = 2 * time.Second  // saves are batched
)

// newLearner loads what was learned before. A file that cannot be read is
// logged and replaced by the next save.
func newLearner(cfg *config.Config, log *slog.Logger) *learner {
	l := &learner{shapes: index.NewShapes(), log: log, sessions: make(map[any]*recent)}
	if cfg == nil || cfg.Search.NoLearn {
		return l
	}
	l.path = cfg.UsageFile()
	if l.path == "" {
		l.usage = index.NewUsage(cfg.Search.MaxPairs)
		return l
	}
	u, err := index.LoadUsage(l.path, cfg.Search.MaxPairs)
	if err != nil {
		log.Warn("search learning: "+err.Error(), "component", "search")
	}
	l.usage = u
	return l
}

// searched notes a search_tools query of a client session.
func (l *learner) searched(session any, query string) {
	if l == nil || l.usage == nil || session == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.sessions[session]
	if r == nil {
		if len(l.order) >= learnSessions {
			delete(l.sessions, l.order[0])
			l.order = l.order[1:]
		}
		r = &recent{taught: make(map[[2]string]bool)}
		l.sessions[session] = r
		l.order = append(l.order, session)
	}
	if len(r.queries) == learnQueries {
		r.queries = r.queries[1:]
	}
	r.queries = append(r.queries, timedQuery{q: query, at: time.Now()})
}

// called learns from a successful call of tool qname by a script of a
// session: the latest search of the session or of the script itself
// (scriptQueries, oldest first) now points at the tool, and so does an
// earlier recent search that found it.
func (l *learner) called(ix *index.Index, session any, scriptQueries []string, qname string) {
	if l == nil || l.usage == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var qs []string
	r := l.sessions[session]
	if r != nil {
		for _, q := range r.queries {
			if time.Since(q.at) < learnWindow {
				qs = append(qs, q.q)
			}
		}
	}
	qs = append(qs, scriptQueries...)
	learned := false
	for i, q := range qs {
		// The latest search led to the call; an earlier one counts only
		// if it found the tool.
		if i < len(qs)-1 && !finds(ix, q, qname) {
			continue
		}
		k := [2]string{q, qname}
		if r != nil {
			if r.taught[k] {
				continue
			}
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

// observed merges the shape of a tool's result.
func (l *learner) observed(qname string, v json.RawMessage) {
	if l != nil {
		l.shapes.Observe(qname, v)
	}
}

func (l *learner) scheduleSaveLocked() {
	if l.path == "" || l.timer != nil || l.closed {
		return
	}
	l.timer = time.AfterFunc(learnSaveDelay, func() {
		l.mu.Lock()
		l.timer = nil
		l.mu.Unlock()
		l.save()
	})
}

func (l *learner) save() {
	if err := l.usage.Save(l.path); err != nil {
		l.log.Warn("search learning: "+err.Error(), "component", "search")
	}
}

// close saves what is pending and stops saving.
func (l *learner) close() {
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

// searchUsage is the Usage searches rank with, nil when learning is off.
func (l *learner) searchUsage() *index.Usage {
	if l == nil {
		return nil
	}
	return l.usage
}

func (l *learner) shapeStore() *index.Shapes {
	if l == nil {
		return nil
	}
	return l.shapes
}

// learnSession is the client session of ctx as the learner keys it: nil
// (not a typed nil pointer) when there is none.
func learnSession(ctx context.Context) any {
	if ss := sessionOf(ctx); ss != nil {
		return ss
	}
	return nil
}

// learnDepth is how deep an earlier search must have found a tool for a
// call to teach it.
const learnDepth = 20

func finds(ix *index.Index, query, qname string) bool {
	for _, h := range ix.Search(query, index.SearchOptions{Limit: learnDepth}) {
		if h.QName == qname {
			return true
		}
	}
	return false
}
