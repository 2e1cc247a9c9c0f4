// Package httplimit bounds what an HTTP client can hold of the server:
// a cap on live sessions (SessionCap) and a deadline on a request's body
// (BodyDeadline); StatusRecorder notes the status a handler answered with.
package httplimit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"
)

// Bounds on what HTTP clients can hold (docs/replicas.md):
//
//   - http.max_sessions live sessions (SessionCap): past it a request that
//     would start a session gets 503 with Retry-After and a JSON-RPC error
//     saying what to do, until one ends (DELETE, or 30 idle minutes);
//   - a request body must arrive within BodyTimeout (BodyDeadline): a
//     client trickling one byte at a time holds a connection and a
//     goroutine for that long at most. The deadline is per request and is
//     lifted once the body is read, so a long run's response and the
//     server-to-client stream (a GET, no body) are never cut by it;
//   - serve's http.Server adds ReadHeaderTimeout and IdleTimeout.

// BodyTimeout is how long a client has to send a request's body.
const BodyTimeout = 30 * time.Second

// retryAfterFull is the Retry-After of a refused session, in seconds.
const retryAfterFull = "30"

// SessionCap refuses new sessions past Max.
type SessionCap struct {
	Max  int
	Live func() int // the live HTTP sessions

	mu      sync.Mutex
	pending int // requests starting a session, not yet answered
}

// Gate admits a request that would start a session (a POST without
// Mcp-Session-Id) while fewer than Max sessions live or are starting.
// A session being made is counted as pending until its answer starts,
// by when its initialize has put it in the registry (Live): at the bound
// a concurrent start may be refused a moment early, never admitted late.
func (c *SessionCap) Gate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		c.mu.Lock()
		if c.Live()+c.pending >= c.Max {
			c.mu.Unlock()
			c.refuse(w)
			return
		}
		c.pending++
		c.mu.Unlock()
		var once sync.Once
		done := func() {
			once.Do(func() {
				c.mu.Lock()
				c.pending--
				c.mu.Unlock()
			})
		}
		defer done()
		// Once the answer starts, the session (if any) is in the registry.
		next.ServeHTTP(&headerHook{ResponseWriter: w, onHeader: done}, r)
	})
}

// headerHook calls onHeader before the response's header is written.
type headerHook struct {
	http.ResponseWriter
	onHeader func()
}

func (h *headerHook) WriteHeader(code int) {
	h.onHeader()
	h.ResponseWriter.WriteHeader(code)
}

func (h *headerHook) Write(b []byte) (int, error) {
	h.onHeader()
	return h.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (h *headerHook) Unwrap() http.ResponseWriter { return h.ResponseWriter }

// refuse answers 503 with a JSON-RPC error (id null: the body is not read).
func (c *SessionCap) refuse(w http.ResponseWriter) {
	msg := fmt.Sprintf("toolfold already serves its maximum of %d sessions (http.max_sessions): retry after %s seconds; a client that is done should end its session (HTTP DELETE /mcp with its Mcp-Session-Id), idle ones end after 30 minutes; an operator can raise http.max_sessions",
		c.Max, retryAfterFull)
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32000, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", retryAfterFull)
	w.WriteHeader(http.StatusServiceUnavailable)
	w.Write(body)
}

// BodyDeadline gives a request with a body d to send all of it: the
// connection's read deadline is set for the body and cleared once it is
// read (or fails), so what follows (a response streamed for minutes, the
// connection's next request) is not bound by it.
func BodyDeadline(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody {
			next.ServeHTTP(w, r)
			return
		}
		rc := http.NewResponseController(w)
		if err := rc.SetReadDeadline(time.Now().Add(d)); err != nil {
			next.ServeHTTP(w, r) // a writer without deadlines (a test recorder)
			return
		}
		r.Body = &deadlineBody{ReadCloser: r.Body, d: d, clear: func() { rc.SetReadDeadline(time.Time{}) }}
		next.ServeHTTP(w, r)
	})
}

// deadlineBody clears the read deadline when the body ends.
type deadlineBody struct {
	io.ReadCloser
	d     time.Duration
	clear func()
	once  sync.Once
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			err = fmt.Errorf("the request body did not arrive within %s: %w", b.d, err)
		} else {
			b.once.Do(b.clear)
		}
	}
	return n, err
}

// StatusRecorder notes the status a handler answered with.
type StatusRecorder struct {
	http.ResponseWriter
	Status int // the first status written; 0 before
}

// WriteHeader notes the first status and writes it.
func (s *StatusRecorder) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (s *StatusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
