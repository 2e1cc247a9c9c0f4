package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Keeping an upstream's notifications ahead of the result they precede.
//
// An upstream sends a call's log and progress notifications before its
// result, on the same stream. The go-sdk's connection hands the result to
// the waiting caller straight from its reader, but queues notifications
// for a handler goroutine; so the result can reach toolfold's caller, and
// be written to the client, while the last notification is still queued.
// By then the call has ended: the relay no longer knows which client
// request the notification belongs to, the client's request stream is
// closed, and the client never sees it (the conformance scenario
// tools-call-with-logging lost its third message about one run in 15).
//
// noteOrder closes that gap. The transport counts the relayable
// notifications it reads (in wire order, before the SDK queues them), a
// receiving middleware counts the ones whose handlers have finished, and
// after every request toolfold makes for a client, the sending middleware
// waits until the handlers have caught up with what was read before the
// result arrived. The wait is normally zero: it only ever waits for a
// handler already running, and never longer than orderWait.
type noteOrder struct {
	mu      sync.Mutex
	read    uint64        // relayable notifications read from the wire
	handled uint64        // ... whose handlers have returned
	moved   chan struct{} // closed and replaced when handled grows
}

// orderWait bounds the wait for handlers to catch up. The counts drift
// apart only when an upstream sends a notification the SDK rejects before
// any handler (bad params); after one wait of this length they are synced.
const orderWait = 500 * time.Millisecond

func newNoteOrder() *noteOrder { return &noteOrder{moved: make(chan struct{})} }

// relayable reports whether a notification is one the relay passes to the
// client request it belongs to.
func relayable(method string) bool {
	return method == "notifications/message" || method == "notifications/progress"
}

func (o *noteOrder) sawRead() {
	o.mu.Lock()
	o.read++
	o.mu.Unlock()
}

func (o *noteOrder) sawHandled() {
	o.mu.Lock()
	// Never ahead of read: a notification the transport could not count
	// (an SSE event over orderScanMax) must not let a later wait pass early.
	o.handled = min(o.handled+1, o.read)
	close(o.moved)
	o.moved = make(chan struct{})
	o.mu.Unlock()
}

// wait returns once every notification read so far has been handled, ctx
// ends, or orderWait passes (then the counts are synced).
func (o *noteOrder) wait(ctx context.Context) {
	o.mu.Lock()
	target := o.read
	if o.handled >= target {
		o.mu.Unlock()
		return
	}
	o.mu.Unlock()
	timer := time.NewTimer(orderWait)
	defer timer.Stop()
	for {
		o.mu.Lock()
		if o.handled >= target {
			o.mu.Unlock()
			return
		}
		moved := o.moved
		o.mu.Unlock()
		select {
		case <-moved:
		case <-ctx.Done():
			return
		case <-timer.C:
			o.mu.Lock()
			o.handled = max(o.handled, target)
			o.mu.Unlock()
			return
		}
	}
}

// receiving counts finished handlers; install it outermost on the client,
// so a notification counts as handled once it has been relayed.
func (o *noteOrder) receiving(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !relayable(method) {
			return next(ctx, method, req)
		}
		defer o.sawHandled()
		return next(ctx, method, req)
	}
}

// sending waits, after each request, for the notifications that preceded
// its result. Install it inside the relay's tracking middleware, which
// forgets the request (and its progress token) when it returns.
func (o *noteOrder) sending(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if !strings.HasPrefix(method, "notifications/") {
			o.wait(ctx)
		}
		return res, err
	}
}

// orderedConn counts relayable notifications as a stdio connection reads
// them.
type orderedConn struct {
	mcp.Connection
	o *noteOrder
}

func (c *orderedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	if r, ok := m.(*jsonrpc.Request); ok && !r.IsCall() && relayable(r.Method) {
		c.o.sawRead()
	}
	return m, err
}

// orderScanMax bounds the SSE data line sseCounter examines; log and
// progress notifications are far smaller.
const orderScanMax = 64 << 10

// sseCounter counts relayable notifications in an SSE response body as the
// SDK reads it, before the SDK parses the events.
type sseCounter struct {
	io.ReadCloser
	o    *noteOrder
	line []byte // the current line, while it may be a relayable event
	skip bool   // the current line is not one
}

func (s *sseCounter) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.scan(p[:n])
	return n, err
}

func (s *sseCounter) scan(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if !s.skip {
			if len(s.line)+len(chunk) > orderScanMax {
				s.skip, s.line = true, s.line[:0]
			} else {
				s.line = append(s.line, chunk...)
				// Decide early: only "data:" lines matter.
				if k := min(len(s.line), 5); !bytes.Equal(s.line[:k], []byte("data:")[:k]) {
					s.skip, s.line = true, s.line[:0]
				}
			}
		}
		if i < 0 {
			return
		}
		if !s.skip {
			s.check(s.line)
		}
		s.line, s.skip = s.line[:0], false
		b = b[i+1:]
	}
}

func (s *sseCounter) check(line []byte) {
	data, ok := bytes.CutPrefix(line, []byte("data:"))
	if !ok || !bytes.Contains(data, []byte("notifications/")) {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(data, &m) == nil && m.ID == nil && relayable(m.Method) {
		s.o.sawRead()
	}
}
