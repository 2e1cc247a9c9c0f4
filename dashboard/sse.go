package dashboard

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/toolfold/toolfold/audit"
)

// Live sections: each is an element id on the page, whose whole content an
// event of the same name replaces.
const (
	sectionRuns      = "runs"
	sectionApprovals = "approvals"
	eventAuditRow    = "audit-row" // one audit row, prepended to #audit-rows
)

// hub fans events out to the open event streams.
type hub struct {
	mu        sync.Mutex
	subs      map[*sub]bool
	done      chan struct{} // closed by Close: the streams end
	closeOnce sync.Once
}

// Close ends the open event streams (a server's Shutdown would otherwise
// wait for them); a page that reconnects later finds no server.
func (d *Dashboard) Close() { d.hub.closeOnce.Do(func() { close(d.hub.done) }) }

// sub is one open stream: the audit filter it was opened with, and the
// events waiting to be written (dropped when the reader is too slow:
// sections are whole each time, so the next one makes up for it).
type sub struct {
	filter filter
	ch     chan event
}

type event struct{ name, data string }

func (h *hub) add(f filter) *sub {
	s := &sub{filter: f, ch: make(chan event, 64)}
	h.mu.Lock()
	h.subs[s] = true
	h.mu.Unlock()
	return s
}

func (h *hub) remove(s *sub) {
	h.mu.Lock()
	delete(h.subs, s)
	h.mu.Unlock()
}

// send queues e for every stream that want accepts.
func (h *hub) send(e event, want func(*sub) bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if want != nil && !want(s) {
			continue
		}
		select {
		case s.ch <- e:
		default:
		}
	}
}

func (h *hub) empty() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs) == 0
}

// changed sends the section's new content to every stream.
func (d *Dashboard) changed(section string) {
	if d.hub.empty() {
		return
	}
	var b bytes.Buffer
	if err := d.renderSection(&b, section, d.snapshot()); err != nil {
		d.log.Warn("dashboard: rendering "+section, "err", err)
		return
	}
	d.hub.send(event{section, b.String()}, nil)
}

// publishRecord sends r's audit row to the streams whose filter takes it.
func (h *hub) publishRecord(r audit.Record) {
	h.mu.Lock()
	n := len(h.subs)
	h.mu.Unlock()
	if n == 0 {
		return
	}
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, "auditrow", r); err != nil {
		return
	}
	h.send(event{eventAuditRow, b.String()}, func(s *sub) bool { return s.filter.match(r) })
}

// serveEvents streams server-sent events until the client goes away.
func (d *Dashboard) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	s := d.hub.add(filterOf(r))
	defer d.hub.remove(s)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": toolfold dashboard\n\n")
	// The sections as they are now: what changed between the page's
	// rendering and this subscription is not lost.
	snap := d.snapshot()
	for _, section := range []string{sectionRuns, sectionApprovals} {
		var b bytes.Buffer
		if err := d.renderSection(&b, section, snap); err == nil {
			writeEvent(w, event{section, b.String()})
		}
	}
	fl.Flush()
	ping := time.NewTicker(20 * time.Second)
	defer ping.Stop()
	for {
		select {
		case e := <-s.ch:
			writeEvent(w, e)
			fl.Flush()
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
			fl.Flush()
		case <-r.Context().Done():
			return
		case <-d.hub.done:
			return
		}
	}
}

// writeEvent writes e, one data: line per line of its data.
func writeEvent(w http.ResponseWriter, e event) {
	var b strings.Builder
	b.WriteString("event: " + e.name + "\n")
	for _, line := range strings.Split(e.data, "\n") {
		b.WriteString("data: " + strings.TrimSuffix(line, "\r") + "\n")
	}
	b.WriteString("\n")
	_, _ = w.Write([]byte(b.String()))
}
