package upstream

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// discoverTimeout is how long an upstream gets to answer server/discover,
// the go-sdk's 2026-07-28 probe, before the SDK falls back to initialize: a
// legacy server that silently drops requests before initialize would
// otherwise stall the connection until connect_timeout.
var discoverTimeout = 5 * time.Second

// discoverState is one upstream's server/discover probe. A 2026-07-28
// server that is slow to start (npx fetching a package, a loaded machine)
// may answer the probe after discoverTimeout: it then takes the probe as
// its initialize and refuses the SDK's fallback initialize as a duplicate,
// and every reconnect would meet the same slow start. So when a
// connection's handshake fails after its probe timed out, the upstream is
// connected again at once with the probe given the whole connect timeout,
// for good. (A legacy server that drops the probe passes the handshake:
// what fails after it, such as its tools/list, is not retried this way.)
type discoverState struct {
	timedOut        atomic.Bool // this connection's probe ran out of discoverTimeout
	handshakeFailed atomic.Bool // this connection failed in the SDK's Connect
	patient         atomic.Bool // the probe gets the connect timeout from now on
}

// middleware bounds the probe: by discoverTimeout, or by connectTimeout
// once the upstream proved slow. It notes a probe that ran out of time.
func (d *discoverState) middleware(connectTimeout time.Duration) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "server/discover" {
				return next(ctx, method, req)
			}
			wait := discoverTimeout
			if d.patient.Load() {
				wait = connectTimeout
			}
			pctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			res, err := next(pctx, method, req)
			if err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded) {
				d.timedOut.Store(true)
			}
			return res, err
		}
	}
}

// retry reports whether a failed connection should be tried again at once
// with a patient probe: its probe timed out and then its handshake failed,
// the probe was not patient yet, and the connect timeout has not run out.
func (d *discoverState) retry(ctx context.Context) bool {
	if !d.timedOut.Load() || !d.handshakeFailed.Load() || ctx.Err() != nil {
		return false
	}
	return d.patient.CompareAndSwap(false, true)
}
