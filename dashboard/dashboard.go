package dashboard

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/policy"
	"github.com/toolfold/toolfold/proxy"
)

// Bounds of what the page keeps in memory.
const (
	maxRuns      = 200      // past runs kept
	maxShownRuns = 30       // runs a page or an event shows: the newest
	maxRecords   = 2000     // audit records kept
	maxOutput    = 8 << 10  // bytes of a run's answer kept
	maxCode      = 16 << 10 // bytes of a run's code kept
	maxEconomy   = 500      // points of the token chart
	bytesPerToke = 4        // the estimate the proxy's footer uses too
)

// Source is what the page reads from the proxy on each request.
type Source interface {
	Status() []proxy.UpstreamStatus
	Sessions() []proxy.SessionInfo
	Pins() *policy.Pins // nil: pinning is off
}

// Options configure a Dashboard. The zero value (or nil) is usable.
type Options struct {
	Logger *slog.Logger // nil discards
	// Token is the page's secret; "" makes a random one.
	Token string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Dashboard keeps what the page shows and serves it (Handler). It
// implements proxy.Observer. Safe for concurrent use.
type Dashboard struct {
	src   Source
	log   *slog.Logger
	token string
	csrf  string
	now   func() time.Time
	hub   hub

	mu        sync.Mutex
	runs      []*run // oldest first
	byID      map[string]*run
	records   []audit.Record // oldest first
	pending   map[string]*pending
	pendOrder []string
	economy   []point
}

var _ proxy.Observer = (*Dashboard)(nil)

// run is one run as the page shows it.
type run struct {
	proxy.RunStart
	Calls []audit.Record
	End   *proxy.RunEnd
}

// pending is a call waiting for the person.
type pending struct {
	ID string
	proxy.Approval
	Asked  time.Time
	answer chan string // buffered 1: a policy.Choice*
}

// point is one run's share of the token economy.
type point struct {
	T        time.Time
	Kept     int64 // tokens of results kept out of context
	Returned int64 // tokens of what went back to the model
}

// New makes a dashboard over src.
func New(src Source, opts *Options) *Dashboard {
	if opts == nil {
		opts = &Options{}
	}
	d := &Dashboard{src: src, log: opts.Logger, token: opts.Token, now: opts.Now,
		byID: map[string]*run{}, pending: map[string]*pending{}}
	if d.log == nil {
		d.log = slog.New(slog.DiscardHandler)
	}
	if d.now == nil {
		d.now = time.Now
	}
	if d.token == "" {
		d.token = randomHex(16)
	}
	m := hmac.New(sha256.New, []byte(d.token))
	m.Write([]byte("csrf"))
	d.csrf = hex.EncodeToString(m.Sum(nil))
	d.hub.subs, d.hub.done = map[*sub]bool{}, make(chan struct{})
	return d
}

// Token is the page's secret, for the URL printed at start.
func (d *Dashboard) Token() string { return d.token }

// URL is the page's address on a listener at addr (host:port).
func (d *Dashboard) URL(addr string) string {
	return "http://" + addr + "/?token=" + d.token
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// RunStarted records a run that started (proxy.Observer).
func (d *Dashboard) RunStarted(s proxy.RunStart) {
	s.Code = cut(s.Code, maxCode)
	d.mu.Lock()
	r := &run{RunStart: s}
	d.runs = append(d.runs, r)
	d.byID[s.RunID] = r
	d.trimRuns()
	d.mu.Unlock()
	d.changed(sectionRuns)
}

// trimRuns drops the oldest ended runs past maxRuns; d.mu is held.
func (d *Dashboard) trimRuns() {
	for len(d.runs) > maxRuns {
		i := slices.IndexFunc(d.runs, func(r *run) bool { return r.End != nil })
		if i < 0 {
			return
		}
		delete(d.byID, d.runs[i].RunID)
		d.runs = slices.Delete(d.runs, i, i+1)
	}
}

// Recorded records an audit record (proxy.Observer): the audit's list,
// and a call's run.
func (d *Dashboard) Recorded(r audit.Record) {
	if r.Time.IsZero() {
		r.Time = d.now()
	}
	r.Args, r.Code = nil, "" // not shown in a row; a run's code is kept from its start
	d.mu.Lock()
	d.records = append(d.records, r)
	if len(d.records) > maxRecords {
		d.records = slices.Delete(d.records, 0, len(d.records)-maxRecords)
	}
	live := false
	if rn := d.byID[r.RunID]; rn != nil && r.Kind != audit.KindRun {
		rn.Calls = append(rn.Calls, r)
		live = true
	}
	d.mu.Unlock()
	d.hub.publishRecord(r)
	if live {
		d.changed(sectionRuns)
	}
}

// RunEnded records a run's end (proxy.Observer).
func (d *Dashboard) RunEnded(e proxy.RunEnd) {
	e.Output = cut(e.Output, maxOutput)
	d.mu.Lock()
	if r := d.byID[e.RunID]; r != nil {
		r.End = &e
	}
	d.economy = append(d.economy, point{T: d.now(), Kept: e.ResultTokens, Returned: int64(len(e.Output) / bytesPerToke)})
	if len(d.economy) > maxEconomy {
		d.economy = slices.Delete(d.economy, 0, len(d.economy)-maxEconomy)
	}
	d.trimRuns()
	d.mu.Unlock()
	d.changed(sectionRuns)
}

// Ask parks a until the person answers on the page or ctx ends
// (proxy.Observer).
func (d *Dashboard) Ask(ctx context.Context, a proxy.Approval) (*mcp.ElicitResult, error) {
	p := &pending{ID: "a-" + randomHex(6), Approval: a, Asked: d.now(), answer: make(chan string, 1)}
	d.mu.Lock()
	d.pending[p.ID] = p
	d.pendOrder = append(d.pendOrder, p.ID)
	d.mu.Unlock()
	d.changed(sectionApprovals)
	defer func() {
		d.mu.Lock()
		delete(d.pending, p.ID)
		d.pendOrder = slices.DeleteFunc(d.pendOrder, func(id string) bool { return id == p.ID })
		d.mu.Unlock()
		d.changed(sectionApprovals)
	}()
	select {
	case c := <-p.answer:
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{policy.ChoiceField: c}}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// errNoApproval is answer's error for an approval no longer waiting.
var errNoApproval = errors.New("this approval is no longer waiting (answered, timed out, or its call ended)")

// answer gives the person's choice to the approval id.
func (d *Dashboard) answer(id, choice string) error {
	switch choice {
	case policy.ChoiceAllowOnce, policy.ChoiceAllowSession, policy.ChoiceDeny:
	default:
		return errors.New("unknown decision " + choice)
	}
	d.mu.Lock()
	p := d.pending[id]
	if p != nil {
		delete(d.pending, id)
	}
	d.mu.Unlock()
	if p == nil {
		return errNoApproval
	}
	p.answer <- choice
	return nil
}

// snapshot copies what the pages show, under d.mu.
type snapshot struct {
	Runs      []run
	OlderRuns int // runs kept but not shown
	Records   []audit.Record
	Approvals []pending
	Economy   []point
}

func (d *Dashboard) snapshot() snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	var s snapshot
	s.OlderRuns = max(len(d.runs)-maxShownRuns, 0)
	for i := len(d.runs) - 1; i >= s.OlderRuns; i-- { // newest first
		r := *d.runs[i]
		r.Calls = slices.Clone(r.Calls)
		s.Runs = append(s.Runs, r)
	}
	s.Records = slices.Clone(d.records)
	slices.Reverse(s.Records)
	for _, id := range d.pendOrder {
		if p := d.pending[id]; p != nil {
			s.Approvals = append(s.Approvals, *p)
		}
	}
	s.Economy = slices.Clone(d.economy)
	return s
}

// cut keeps the first n bytes of s (at a UTF-8 boundary), saying so.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "\n[… cut on the dashboard]"
}
