package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
)

// bridgeServer is the parent's end of the bridge: it sends the run frame,
// serves the child's requests concurrently and records the done
// notification. The child is untrusted: a malformed, oversized or unknown
// frame kills it.
//
// Whatever the child sends, the parent's cost stays bounded: at most
// MaxConcurrency admitted requests are in flight, each in one goroutine that
// holds a slot of sem until its response is written, and while every slot
// is taken the serve loop reads no further frame (the child's writes then
// block on the full pipe). Requests past MaxToolCalls are answered by the
// serve loop itself, without a goroutine, and a child that keeps sending
// them is killed (maxRefusedCalls). A response write that blocks because
// the child does not read blocks at most until the wall timeout (or ctx)
// kills the child, which breaks the pipe.
type bridgeServer struct {
	c    *child
	host Host
	w    *frameWriter
	sem  chan struct{}  // one slot per admitted request in flight
	wg   sync.WaitGroup // response writers and the run frame writer

	admitted    int                // requests passed to the host; serve goroutine only
	refused     int                // requests refused past MaxToolCalls; serve goroutine only
	inflight    map[int64]struct{} // ids of admitted requests awaiting a response
	inflightMu  sync.Mutex
	calls       atomic.Int64
	resultBytes atomic.Int64
	frameBytes  atomic.Int64 // every frame read and written: how much the run moved through the parent
	done        *doneParams  // set by serve; read after it returns, or once doneSeen is closed
	pending     bool         // the child said its code ended with work pending; as done
	// doneSeen is closed when done is set: the script's outcome is known
	// (supervise answers then when the caller asked for it, Request.OnDone).
	doneSeen chan struct{}
}

func newBridgeServer(c *child, host Host) *bridgeServer {
	return &bridgeServer{
		c:        c,
		host:     host,
		w:        &frameWriter{w: c.bridgeW},
		sem:      make(chan struct{}, c.lim.MaxConcurrency),
		inflight: make(map[int64]struct{}),
		doneSeen: make(chan struct{}),
	}
}

// pipeAtomic is PIPE_BUF on Linux: a pipe with room for one more byte has
// room for a write this size.
const pipeAtomic = 4096

// serve sends first, then reads the child's frames until EOF.
func (b *bridgeServer) serve(ctx context.Context, first []byte) {
	if len(first) <= pipeAtomic {
		// Written at once, not by another goroutine: on a busy machine the
		// hop to it costs more than the write. The child reads its run frame
		// before anything of the script runs, and the pipe holds at least
		// this much, so the write does not wait for the script.
		b.w.writeRaw(first)
	} else {
		b.wg.Go(func() { b.w.writeRaw(first) }) // may block until the child reads it
	}
	fr := newFrameReader(b.c.bridgeR, b.c.lim.MaxFrameBytes)
	for {
		line, err := fr.next()
		switch {
		case err == nil:
		case errors.Is(err, errFrameTooLarge):
			b.c.kill(&ScriptError{Kind: "limit", Msg: fmt.Sprintf(
				"the script sent a bridge frame over the %s frame limit; pass less data per tool call or raise %s",
				fmtBytes(int64(b.c.lim.MaxFrameBytes)), hintFrame)})
			return
		case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF), errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, os.ErrClosed):
			return // the child died or is being reaped: its exit says why
		default:
			b.protocolError("reading the bridge: %v", err)
			return
		}
		b.frameBytes.Add(int64(len(line)))
		if b.done != nil {
			continue // nothing counts after done
		}
		if !b.handle(ctx, line) {
			return
		}
	}
}

// handle dispatches one frame; false means the child was killed.
func (b *bridgeServer) handle(ctx context.Context, line []byte) bool {
	if bytes.HasPrefix(line, donePrefix) {
		// The done frame as the preludes write it, decoded without a copy of
		// its params (the return value, up to MaxFrameBytes) on the way.
		var df struct {
			Method string     `json:"method"`
			Params doneParams `json:"params"`
		}
		if json.Unmarshal(line, &df) == nil && df.Method == methodDone {
			b.setDone(&df.Params)
			return true
		}
	}
	var f frame
	if err := json.Unmarshal(line, &f); err != nil {
		b.protocolError("malformed bridge frame: %v", err)
		return false
	}
	switch f.Method {
	case methodCall, methodSearch, methodSave:
		return b.request(ctx, &f)
	case methodDone:
		var d doneParams
		if err := json.Unmarshal(f.Params, &d); err != nil {
			b.protocolError("malformed done frame: %v", err)
			return false
		}
		b.setDone(&d)
		return true
	case methodPending:
		b.pending = true
		return true
	case "":
		b.protocolError("bridge frame without a method")
	default:
		b.protocolError("unknown bridge method %q", f.Method)
	}
	return false
}

var donePrefix = []byte(`{"method":"done","params":{`)

// setDone records the done notification.
func (b *bridgeServer) setDone(d *doneParams) {
	if d.Error != nil && !knownKinds[d.Error.Kind] {
		d.Error.Kind = "runtime"
	}
	b.done = d
	close(b.doneSeen) // once: serve ignores every frame after done
}

var knownKinds = map[string]bool{"syntax": true, "runtime": true, "timeout": true, "memory": true,
	"cpu": true, "output": true, "limit": true, "killed": true}

// maxRefusedCalls is how many requests past MaxToolCalls a run may make
// before the child is killed: a script that catches the limit error a few
// times and stops is fine; one that keeps calling is looping (or hostile).
const maxRefusedCalls = 100

// request admits one call or search: it checks the id and the call limit,
// waits for a concurrency slot and answers in its own goroutine. A request
// past the call limit is refused from the serve loop, with no goroutine.
func (b *bridgeServer) request(ctx context.Context, f *frame) bool {
	if f.ID <= 0 {
		b.protocolError("%s request without a positive id", f.Method)
		return false
	}
	admit := b.admitted < b.c.lim.MaxToolCalls
	b.inflightMu.Lock()
	_, dup := b.inflight[f.ID]
	if admit && !dup {
		b.inflight[f.ID] = struct{}{}
	}
	b.inflightMu.Unlock()
	if dup {
		b.protocolError("request id %d reused while in flight", f.ID)
		return false
	}
	if !admit {
		b.refused++
		if b.refused > maxRefusedCalls {
			b.c.kill(&ScriptError{Kind: "limit", Msg: fmt.Sprintf(
				"the script kept calling tools past the tool call limit of %d per run (%d more calls refused); "+
					"stop calling once a call fails with the limit error, do more per call or raise %s",
				b.c.lim.MaxToolCalls, maxRefusedCalls, hintToolCalls)})
			return false
		}
		b.reply(f.ID, nil, fmt.Sprintf("tool call limit of %d per run reached; do more per call or raise %s",
			b.c.lim.MaxToolCalls, hintToolCalls), "")
		return true
	}
	b.admitted++
	b.calls.Store(int64(b.admitted))
	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	b.wg.Go(func() {
		defer func() { <-b.sem }()
		out := new(callOutput)
		result, msg := b.dispatch(context.WithValue(ctx, callOutputKey{}, out), f)
		b.inflightMu.Lock()
		delete(b.inflight, f.ID) // before the write: the child may reuse the id once it has the response
		b.inflightMu.Unlock()
		b.reply(f.ID, result, msg, out.text())
	})
	return true
}

// dispatch runs one request against the host. It returns the result, or the
// error message the script sees. A panicking host is the proxy's bug: it is
// logged and the script gets an error, so the proxy keeps serving.
func (b *bridgeServer) dispatch(ctx context.Context, f *frame) (result json.RawMessage, msg string) {
	defer func() {
		if r := recover(); r != nil {
			b.c.p.log.Error("host panicked during a script's request", "method", f.Method, "panic", r,
				"stack", string(debug.Stack()))
			result, msg = nil, f.Method+": internal error in the proxy (details are in its log)"
		}
	}()
	switch f.Method {
	case methodCall:
		var p callParams
		if err := json.Unmarshal(f.Params, &p); err != nil || p.Name == "" {
			return nil, "call: expected params {name, args}"
		}
		args := bytes.TrimSpace(p.Args)
		if len(args) == 0 {
			args = json.RawMessage("null")
		}
		if args[0] != '{' && string(args) != "null" {
			return nil, p.Name + ": arguments must be an object with named fields"
		}
		res, err := b.host.Call(ctx, p.Name, args)
		if err != nil {
			return nil, b.errorText(ctx, p.Name, err)
		}
		return res, ""
	case methodSave:
		saver, ok := b.host.(SkillSaver)
		if !ok {
			return nil, "skills.save: skills cannot be saved here"
		}
		res, err := saver.SaveSkill(ctx, f.Params)
		if err != nil {
			return nil, b.errorText(ctx, "skills.save", err)
		}
		return res, ""
	default: // methodSearch
		var p searchParams
		if err := json.Unmarshal(f.Params, &p); err != nil {
			return nil, "search_tools: expected params {query, detail, limit}"
		}
		text, err := b.host.Search(ctx, p.Query, p.Detail, p.Limit)
		if err != nil {
			return nil, b.errorText(ctx, "search_tools", err)
		}
		return mustJSON(text), ""
	}
}

// errorText is what the script sees for a host error: a ToolError's message,
// and nothing of any other error (it may carry internals); those are logged.
func (b *bridgeServer) errorText(ctx context.Context, name string, err error) string {
	if te, ok := errors.AsType[*ToolError](err); ok {
		if te.Msg == "" {
			return name + ": the tool failed without a message"
		}
		return te.Msg
	}
	if ctx.Err() != nil {
		return name + ": run cancelled"
	}
	b.c.p.log.Warn("host error during a script's tool call", "tool", name, "err", err)
	return name + ": internal error in the proxy (details are in its log)"
}

// reply sends a response: the result, or msg when it is not empty. A result
// too big for a frame is replaced by an error the script can act on. It
// blocks while the child does not read, until the child is killed.
func (b *bridgeServer) reply(id int64, result json.RawMessage, msg, output string) {
	var data []byte
	var err error
	if msg != "" {
		data, err = marshal(&frame{ID: id, Output: output, Error: &frameError{Message: msg}})
	} else {
		if len(result) == 0 {
			result = json.RawMessage("null")
		}
		data, err = resultFrame(id, result, output) // compacts the result onto one line
	}
	if err != nil {
		b.c.p.log.Warn("host returned invalid JSON for a script's tool call", "err", err)
		data = mustJSON(&frame{ID: id, Error: &frameError{Message: "the tool returned invalid JSON"}})
	} else if len(data) > b.c.lim.MaxFrameBytes {
		data = mustJSON(&frame{ID: id, Error: &frameError{Message: fmt.Sprintf(
			"the result of %d bytes exceeds the %s frame limit; ask the tool for less (a filter, a page, fewer fields) or raise %s",
			len(data), fmtBytes(int64(b.c.lim.MaxFrameBytes)), hintFrame)}})
	} else if msg == "" {
		b.resultBytes.Add(int64(len(result)))
	}
	b.frameBytes.Add(int64(len(data)))
	b.w.writeRaw(data)
}

// resultFrame is marshal(&frame{ID: id, Result: result, Output: output})
// with one copy of the result, where marshal makes three (an encoder's
// buffer, pooled by encoding/json until the next collections, the
// Encoder's and the returned slice): the result may be tens of MiB.
func resultFrame(id int64, result json.RawMessage, output string) ([]byte, error) {
	var out []byte
	if output != "" {
		var err error
		if out, err = marshal(output); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	buf.Grow(len(result) + len(out) + 40)
	buf.WriteString(`{"id":`)
	buf.WriteString(strconv.FormatInt(id, 10))
	buf.WriteString(`,"result":`)
	if err := json.Compact(&buf, result); err != nil {
		return nil, err
	}
	if out != nil {
		buf.WriteString(`,"output":`)
		buf.Write(out)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// protocolError kills a child that broke the bridge protocol.
func (b *bridgeServer) protocolError(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	b.c.p.log.Warn("sandbox child broke the bridge protocol", "pid", b.c.pid, "err", msg)
	b.c.kill(&ScriptError{Kind: "killed", Msg: "sandbox protocol error: " + msg})
}

// wait waits for every response writer.
func (b *bridgeServer) wait() { b.wg.Wait() }
