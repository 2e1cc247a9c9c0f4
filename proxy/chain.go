package proxy

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

// The middleware chains, declared once. In each list the first entry runs
// first (outermost): the SDK applies them right to left.

// clientChain wraps every request the client sends to toolfold.
func clientChain(log *slog.Logger, life func(*mcp.ServerSession) context.Context, tel *telemetry, pii *piiState) []mcp.Middleware {
	return []mcp.Middleware{
		// recover is outermost so a panic anywhere below, in a handler or
		// another middleware, becomes an internal error for that one
		// request instead of killing every session (the SDK does not
		// recover handler panics).
		recoverMiddleware(log),
		// trace opens the SERVER span, continuing the client's trace from
		// params._meta, before anything else runs, so that every span
		// below (the script, its upstream calls) is its child and the
		// duration covers the whole request. Inside recover: a panic
		// below still ends the span (marked failed) on its way up.
		tel.serverMiddleware(),
		// log sits inside recover so it still records requests whose
		// handler panicked, with the error recover produced; inside trace
		// so that its context carries the span.
		logMiddleware(log.With("edge", "client")),
		// lifetime is innermost: it only changes the context the handler
		// sees, tying it to the proxy's life and the client session's, so
		// that shutdown, or a session that ends (an HTTP client's DELETE,
		// a dropped connection, the idle timeout), cancels a running
		// script or upstream request instead of waiting for it (the SDK
		// waits for in-flight handlers, and does not cancel them).
		lifetimeMiddleware(life),
		// pii only adds the client session's vault to the context, for
		// the rewrite on the upstream edge (rewrite.go). Nil: PII is off.
		piiSessionMiddleware(pii),
	}
}

// lifetimeMiddleware ends each request's context with life(its session),
// a context that ends with the session or the proxy: one cancellable
// context per request, whichever ends first.
func lifetimeMiddleware(life func(*mcp.ServerSession) context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			defer context.AfterFunc(life(ss), cancel)()
			return next(ctx, method, req)
		}
	}
}

// upstreamChain wraps every request toolfold sends to the upstream up.
func upstreamChain(log *slog.Logger, tel *telemetry, up config.Upstream) []mcp.Middleware {
	return []mcp.Middleware{
		// trace is outermost on the upstream edge: its CLIENT span (a
		// child of the script's span when a script called) times the
		// request as the caller waits for it, including the probe timeout
		// below, and replaces any trace context in params._meta with its
		// own, so no client's values are forwarded upstream.
		tel.clientMiddleware(up),
		// log sits inside trace, so its context carries the span.
		logMiddleware(log.With("edge", "upstream")),
		// discoverTimeout bounds the go-sdk's 2026-07-28 server/discover
		// probe: a legacy server that silently drops requests before
		// initialize would otherwise stall the connection until
		// connect_timeout. On timeout the SDK falls back to initialize.
		discoverTimeoutMiddleware(),
		// rewrite is innermost: it restores PII tokens in what goes to the
		// upstream and tokenizes what comes back (rewrite.go), so logs and
		// traces above only ever see tokens.
		rewriteMiddleware(up.Name),
	}
}

// discoverTimeout is how long an upstream gets to answer server/discover.
var discoverTimeout = 5 * time.Second

func discoverTimeoutMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "server/discover" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, discoverTimeout)
				defer cancel()
			}
			return next(ctx, method, req)
		}
	}
}

func recoverMiddleware(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if r := recover(); r != nil {
					log.Error("panic in handler", "method", method, "panic", r, "stack", string(debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("toolfold internal error in %s (logged); please report it", method)}
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// logMiddleware logs each request at debug level, and failures at warn.
// It logs methods, durations and errors, never arguments or results.
func logMiddleware(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			start := time.Now()
			res, err := next(ctx, method, req)
			if err != nil && ctx.Err() == nil && !expectedFailure(method, err) {
				log.Warn("request failed", "method", method, "took", time.Since(start).Round(time.Microsecond), "err", err)
			} else if log.Enabled(ctx, slog.LevelDebug) { // no boxing of the arguments when off
				if err != nil {
					log.Debug("request failed, as expected", "method", method, "took", time.Since(start).Round(time.Microsecond), "err", err)
				} else {
					log.Debug("request", "method", method, "took", time.Since(start).Round(time.Microsecond))
				}
			}
			return res, err
		}
	}
}

// expectedFailure reports errors that are part of normal operation: the
// go-sdk client probes every upstream with the 2026-07-28 server/discover
// and falls back to initialize on any failure, whether an older server
// answers method-not-found, times out, or (over HTTP) a plain 400 or 404.
func expectedFailure(method string, err error) bool {
	return method == "server/discover" && err != nil
}
