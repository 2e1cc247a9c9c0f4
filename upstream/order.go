package upstream

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
	// Never ahead of read, so a notification the transport could not count
	// (an SSE event over orderScanMax) does not leave every later wait
	// passing early; the one wait it overlaps may still pass early.
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
	if r, ok := m.(*jsonrpc.Request); ok && !r.IsCall() && willRelay(r.Method, r.Params) {
		c.o.sawRead()
	}
	return m, err
}

// willRelay reports whether the SDK will hand a notification to the
// receiving middleware: a relayable method whose params decode as the SDK
// decodes them. One it rejects is never counted as handled, so counting it
// as read would cost the next request orderWait.
func willRelay(method string, params json.RawMessage) bool {
	if !relayable(method) || len(params) == 0 {
		return false
	}
	var err error
	if method == "notifications/message" {
		err = json.Unmarshal(params, new(mcp.LoggingMessageParams))
	} else {
		err = json.Unmarshal(params, new(mcp.ProgressNotificationParams))
	}
	return err == nil
}

// orderScanMax bounds the SSE line and event data sseCounter examines; log
// and progress notifications are far smaller. One over it is not counted,
// and may then pass a later wait early: ordering is best effort past it.
const orderScanMax = 64 << 10

// sseCounter counts relayable notifications in an SSE response body as the
// SDK reads it, before the SDK parses the events. It follows the SDK's
// reading: events of type "message" (or none) only, and nothing after a
// response, which ends a POST's stream for the SDK (the rest of the body is
// drained unread).
type sseCounter struct {
	io.ReadCloser
	o *noteOrder

	line     []byte // the current line, up to orderScanMax
	lineOver bool   // ... which was longer
	afterCR  bool   // the last line ended with CR: skip a following LF
	evType   string // the current event's "event:" field
	evData   []byte // its "data:" lines, joined with LF
	evOver   bool   // its data passed orderScanMax
	done     bool   // a response was seen: count no more
}

func (s *sseCounter) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	s.scan(p[:n])
	return n, err
}

func (s *sseCounter) scan(b []byte) {
	for len(b) > 0 && !s.done {
		if s.afterCR {
			s.afterCR = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		i := bytes.IndexAny(b, "\r\n")
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if room := orderScanMax - len(s.line); len(chunk) > room {
			s.line, s.lineOver = append(s.line, chunk[:room]...), true
		} else {
			s.line = append(s.line, chunk...)
		}
		if i < 0 {
			return
		}
		s.afterCR = b[i] == '\r'
		s.endLine()
		b = b[i+1:]
	}
}

// endLine takes a whole line, as the SSE format reads it.
func (s *sseCounter) endLine() {
	line, over := s.line, s.lineOver
	s.line, s.lineOver = s.line[:0], false
	switch {
	case len(line) == 0 && !over:
		s.endEvent()
	case bytes.HasPrefix(line, []byte("event:")):
		s.evType = string(bytes.TrimSpace(line[len("event:"):]))
	case bytes.HasPrefix(line, []byte("data:")):
		data := line[len("data:"):]
		data, _ = bytes.CutPrefix(data, []byte(" "))
		if s.evData != nil {
			s.evData = append(s.evData, '\n')
		}
		if over || len(s.evData)+len(data) > orderScanMax {
			s.evOver = true
		} else {
			s.evData = append(s.evData, data...)
			if s.evData == nil {
				s.evData = []byte{}
			}
		}
	}
}

func (s *sseCounter) endEvent() {
	typ, data, over := s.evType, s.evData, s.evOver
	s.evType, s.evData, s.evOver = "", nil, false
	if data == nil || over || (typ != "" && typ != "message") {
		return
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil {
		return
	}
	switch {
	case m.ID != nil && m.Method == "":
		s.done = true // a response: the SDK reads no further
	case m.ID == nil && willRelay(m.Method, m.Params):
		s.o.sawRead()
	}
}
