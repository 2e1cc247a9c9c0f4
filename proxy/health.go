package proxy

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Health, readiness and a graceful drain, for replicas behind a load
// balancer (docs/replicas.md).
//
//   - /healthz answers 200 while the process serves HTTP: a load balancer's
//     liveness check. It says nothing else.
//   - /readyz answers 200 when the replica should get new sessions: it is
//     not draining, every upstream has finished its first connection attempt
//     and the shared store (if any) answers; else 503. An upstream that is
//     down does not make a replica unready: every replica shares the same
//     upstreams, so taking them all out of rotation would turn one broken
//     server into an outage (search_tools already says which are down).
//   - Drain (SIGTERM) makes /readyz fail, refuses new sessions with 503 (a
//     client then starts one elsewhere) and waits for the requests in
//     flight, up to a bound, before the proxy shuts down.
//
// Neither endpoint needs the bearer token, and neither reveals anything:
// their bodies are one fixed word.

// drainState counts the MCP requests in flight over HTTP and refuses new
// sessions once draining.
type drainState struct {
	mu       sync.Mutex
	draining bool
	inflight int
	idle     chan struct{} // closed when draining and inflight reaches 0
}

// Ready reports whether the replica should receive new sessions.
func (p *Proxy) Ready(ctx context.Context) bool {
	p.drain.mu.Lock()
	draining := p.drain.draining
	p.drain.mu.Unlock()
	if draining {
		return false
	}
	if !p.pool.Attempted() {
		return false
	}
	if p.readyCheck != nil && p.readyCheck(ctx) != nil {
		return false
	}
	return true
}

// Drain stops taking new sessions and waits, until ctx ends, for the MCP
// requests in flight to finish. It reports whether they all did. The caller
// then shuts the proxy down, which cancels whatever still runs.
func (p *Proxy) Drain(ctx context.Context) bool {
	d := &p.drain
	d.mu.Lock()
	if !d.draining {
		d.draining = true
		d.idle = make(chan struct{})
		if d.inflight == 0 {
			close(d.idle)
		}
	}
	idle := d.idle
	d.mu.Unlock()
	select {
	case <-idle:
		return true
	case <-ctx.Done():
		return false
	}
}

// gate counts requests in flight and, once draining, refuses requests that
// would start a session. A GET (the server-to-client stream) is not
// counted: it lasts as long as the session, not one request.
func (d *drainState) gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		d.mu.Lock()
		if d.draining && r.Header.Get("Mcp-Session-Id") == "" {
			d.mu.Unlock()
			w.Header().Set("Retry-After", "1")
			http.Error(w, "toolfold is shutting down: start the session again (a load balancer sends it to another replica)", http.StatusServiceUnavailable)
			return
		}
		d.inflight++
		d.mu.Unlock()
		defer d.done()
		next.ServeHTTP(w, r)
	})
}

func (d *drainState) done() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.inflight--
	if d.draining && d.inflight == 0 {
		select {
		case <-d.idle:
		default:
			close(d.idle)
		}
	}
}

// healthHandlers adds /healthz and /readyz to mux.
func (p *Proxy) healthHandlers(mux *http.ServeMux) {
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if !p.Ready(ctx) {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
}
