package proxy

import (
	"cmp"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/httplimit"
)

// HTTPHandler serves MCP over streamable HTTP at /mcp. With a token, every
// request must carry "Authorization: Bearer <token>". The SDK's DNS
// rebinding protection (loopback requests with a foreign Host are refused)
// stays on, and cross-origin browser requests are refused.
func (p *Proxy) HTTPHandler(token string) http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return p.server }, &mcp.StreamableHTTPOptions{
		Logger:              p.log,
		MaxRequestBodyBytes: 16 << 20,
		// Idle sessions are closed so that clients that vanish without a
		// DELETE do not accumulate.
		SessionTimeout: 30 * time.Minute,
		// A 2026-07-28 request whose HTTP request ends is cancelled; older
		// sessions are cancelled on DELETE (endOnDelete).
		PropagateRequestCancellation: true,
	})
	var mcpHandler http.Handler = http.NewCrossOriginProtection().Handler(p.endOnDelete(h))
	maxSessions := p.cfg.HTTP.MaxSessions
	if maxSessions <= 0 {
		maxSessions = config.DefaultMaxSessions
	}
	limit := &httplimit.SessionCap{Max: maxSessions, Live: p.sessions.liveHTTP}
	mcpHandler = httplimit.BodyDeadline(cmp.Or(p.bodyTimeout, httplimit.BodyTimeout), limit.Gate(mcpHandler))
	if token != "" {
		mcpHandler = bearer(token, mcpHandler)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.drain.gate(mcpHandler))
	p.healthHandlers(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "toolfold serves MCP at /mcp", http.StatusNotFound)
	})
	return mux
}

// bearer checks the token in constant time: both sides are hashed first,
// so neither the content nor the length of the token leaks through timing.
// The scheme is case-insensitive (RFC 7235): "bearer" passes as "Bearer".
func bearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := sha256.Sum256([]byte(bearerToken(r.Header.Get("Authorization"))))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolfold"`)
			http.Error(w, "missing or wrong bearer token (Authorization: Bearer <http.bearer_token>)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerToken is the token of an Authorization header of the Bearer
// scheme, in any case and after one or more spaces; "" for another scheme
// or none.
func bearerToken(h string) string {
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimLeft(tok, " ")
}

// CheckListenAddr refuses a non-loopback address unless a bearer token is
// configured: an unauthenticated proxy on the network would hand anyone
// the upstreams' credentials.
func CheckListenAddr(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT, e.g. 127.0.0.1:8765", addr)
	}
	if isLoopback(host) || token != "" {
		return nil
	}
	return fmt.Errorf("--http %s is not a loopback address: set http.bearer_token in the config (clients then send \"Authorization: Bearer <token>\"), or bind 127.0.0.1", addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeStdio serves MCP on the process's stdin and stdout until the client
// closes the connection or ctx ends. Either one shuts the proxy down, so
// requests still running (a script) are cancelled, not awaited. It returns
// nil when the client closed the connection, ctx's error when ctx ended
// (a signal: a normal stop, which the go-sdk's Server.Run would log at
// ERROR as "server run cancelled"), and the session's error otherwise.
func (p *Proxy) ServeStdio(ctx context.Context) error {
	stop := context.AfterFunc(ctx, p.Shutdown)
	defer stop()
	t := &mcp.IOTransport{
		Reader: &eofReader{ReadCloser: os.Stdin, onEOF: p.Shutdown},
		Writer: nopWriteCloser{os.Stdout},
	}
	ss, err := p.server.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("stdio: %w", err)
	}
	ended := make(chan error, 1)
	go func() { ended <- ss.Wait() }()
	select {
	case err := <-ended:
		return err
	case <-ctx.Done():
		ss.Close()
		<-ended
		return ctx.Err()
	}
}

// eofReader calls onEOF when the client closes its end of stdin.
type eofReader struct {
	io.ReadCloser
	onEOF func()
}

func (r *eofReader) Read(b []byte) (int, error) {
	n, err := r.ReadCloser.Read(b)
	if err != nil {
		r.onEOF()
	}
	return n, err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// endOnDelete wraps the streamable HTTP handler: a DELETE of a session
// cancels its requests in flight before the SDK closes it, and frees its
// place under http.max_sessions once the SDK has.
func (p *Proxy) endOnDelete(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodDelete {
			next.ServeHTTP(w, r)
			return
		}
		id := r.Header.Get("Mcp-Session-Id")
		p.sessions.cancelID(id)
		rec := &httplimit.StatusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		if rec.Status == http.StatusNoContent { // the SDK closed it
			p.sessions.detachID(id)
		}
	})
}
