package upstream

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// lineConn is the connection to a stdio upstream: newline-delimited
// JSON-RPC, as mcp.IOTransport speaks it, read on the caller's goroutine.
//
// The go-sdk's IOTransport reads in a goroutine of its own and hands each
// message over a channel to the SDK's reader goroutine, after two decoding
// passes the message does not need (a json.Decoder pass to find where it
// ends, and an attempt to decode it as a batch, which allocates a 32 KiB
// buffer). Every upstream answer on the passthrough path paid that
// goroutine switch and those passes. lineConn reads a line and decodes it
// once. The SDK never cancels its reader's context; Close unblocks a
// pending Read by closing the pipe, as the Connection contract asks.
//
// What IOTransport accepts, lineConn accepts: a message spread over several
// lines (decoded once the lines so far make whole JSON), batches (an array
// of messages; the answers to the requests in one go back as one array),
// CR LF line ends. A frame over max bytes fails the connection, and so does
// a line that is not JSON, with encoding/json's message ("invalid
// character ..."), which callers report as a malformed upstream.
type lineConn struct {
	r   *bufio.Reader
	rc  io.Closer
	max int // bytes in one frame

	queue []jsonrpc.Message // the rest of the last batch read

	wmu     sync.Mutex
	w       io.WriteCloser
	batches map[jsonrpc.ID]*lineBatch // requests read in a batch, until answered

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

// lineBatch collects the answers to the requests of one incoming batch.
type lineBatch struct {
	place   map[jsonrpc.ID]int // request id -> its place in answers
	answers []*jsonrpc.Response
	left    int // requests not answered yet
}

func newLineConn(r io.ReadCloser, w io.WriteCloser, max int) *lineConn {
	return &lineConn{r: bufio.NewReaderSize(r, 64<<10), rc: r, w: w, max: max}
}

var errFrameTooLarge = errors.New("upstream sent a JSON-RPC frame over the size limit")

// Read returns the next message.
func (c *lineConn) Read(context.Context) (jsonrpc.Message, error) {
	if len(c.queue) > 0 {
		m := c.queue[0]
		c.queue = c.queue[1:]
		return m, nil
	}
	var buf []byte
	for {
		line, err := c.line(len(buf))
		if err != nil {
			switch {
			case c.closed.Load():
				err = io.EOF // as IOTransport reports a read cut by Close
			case err == io.EOF && len(bytes.TrimSpace(buf)) > 0:
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if buf == nil {
			buf = line // the common case: one line, one message
		} else {
			buf = append(buf, line...)
		}
		frame := bytes.TrimSpace(buf)
		if len(frame) == 0 {
			buf = nil // a blank line
			continue
		}
		m, batch, err := c.decode(frame)
		if err == errIncomplete {
			continue // the value goes on on the next line
		}
		if err != nil {
			return nil, err
		}
		if batch != nil {
			m, c.queue = batch[0], batch[1:]
		}
		return m, nil
	}
}

var errIncomplete = errors.New("incomplete JSON")

// decode decodes a frame: one message, or a batch of them. The common
// case, one whole message, costs one decoding pass.
func (c *lineConn) decode(frame []byte) (jsonrpc.Message, []jsonrpc.Message, error) {
	if frame[0] == '{' {
		if m, err := jsonrpc.DecodeMessage(frame); err == nil {
			return m, nil, nil
		}
	}
	var batch []json.RawMessage
	err := json.Unmarshal(frame, &batch)
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &syntax) && syntax.Offset >= int64(len(frame)) && syntax.Error() == "unexpected end of JSON input":
		return nil, nil, errIncomplete
	case errors.As(err, &syntax):
		return nil, nil, err // not JSON: IOTransport fails with the same message
	case err != nil: // JSON, but not an array
		_, err := jsonrpc.DecodeMessage(frame)
		return nil, nil, err
	case len(batch) == 0:
		return nil, nil, errors.New("empty batch")
	}
	msgs := make([]jsonrpc.Message, len(batch))
	for i, raw := range batch {
		if msgs[i], err = jsonrpc.DecodeMessage(raw); err != nil {
			return nil, nil, err
		}
	}
	if err := c.track(msgs); err != nil {
		return nil, nil, err
	}
	return nil, msgs, nil
}

// line reads one line, with its newline, keeping the frame within c.max
// (had bytes of it are already read). The line is the caller's to keep.
func (c *lineConn) line(had int) ([]byte, error) {
	var out []byte
	for {
		frag, err := c.r.ReadSlice('\n')
		if had+len(out)+len(frag) > c.max {
			return nil, fmt.Errorf("%w (%d MiB)", errFrameTooLarge, c.max>>20)
		}
		out = append(out, frag...)
		if err != bufio.ErrBufferFull {
			if err == io.EOF && len(out) > 0 {
				err = nil // a last line without a newline
			}
			return out, err
		}
	}
}

// track records the requests of an incoming batch, whose answers go back
// together.
func (c *lineConn) track(msgs []jsonrpc.Message) error {
	b := &lineBatch{place: map[jsonrpc.ID]int{}}
	for _, m := range msgs {
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			if _, dup := b.place[r.ID]; dup {
				return fmt.Errorf("duplicate message ID %v in a batch", r.ID.Raw())
			}
			b.place[r.ID] = len(b.answers)
			b.answers = append(b.answers, nil)
		}
	}
	if len(b.answers) == 0 {
		return nil
	}
	b.left = len(b.answers)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.batches == nil {
		c.batches = map[jsonrpc.ID]*lineBatch{}
	}
	for id := range b.place {
		if _, dup := c.batches[id]; dup {
			return fmt.Errorf("batch contains previously seen request %v", id.Raw())
		}
	}
	for id := range b.place {
		c.batches[id] = b
	}
	return nil
}

// Write sends msg; an answer to a request read in a batch waits for the
// batch's other answers and goes with them.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	var data []byte
	var err error
	if resp, ok := msg.(*jsonrpc.Response); ok && c.batches[resp.ID] != nil {
		b := c.batches[resp.ID]
		delete(c.batches, resp.ID)
		b.answers[b.place[resp.ID]] = resp
		if b.left--; b.left > 0 {
			return nil
		}
		data, err = encodeBatch(b.answers)
	} else {
		data, err = jsonrpc.EncodeMessage(msg)
	}
	if err != nil {
		return fmt.Errorf("marshaling message: %v", err)
	}
	_, err = c.w.Write(append(data, '\n'))
	return err
}

func encodeBatch(answers []*jsonrpc.Response) ([]byte, error) {
	raws := make([]json.RawMessage, len(answers))
	for i, a := range answers {
		var err error
		if raws[i], err = jsonrpc.EncodeMessage(a); err != nil {
			return nil, err
		}
	}
	return json.Marshal(raws)
}

// Close closes the upstream's stdout, then its stdin (which ends the
// process: see procWriter), as IOTransport's connection does.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.closed.Store(true)
		c.closeErr = errors.Join(c.rc.Close(), c.w.Close())
	})
	return c.closeErr
}

func (c *lineConn) SessionID() string { return "" }
