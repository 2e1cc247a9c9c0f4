package sandbox

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// The bridge: newline-delimited JSON frames between the parent (the proxy)
// and the child, over two pipes that are neither stdin nor stdout. See doc.go
// for the protocol.

// Bridge methods.
const (
	methodRun    = "run"        // parent → child, first frame: the code and limits
	methodCall   = "call"       // child → parent request: a tool call
	methodSearch = "search"     // child → parent request: search_tools
	methodSave   = "save_skill" // child → parent request: skills.save (SkillSaver)
	methodDone   = "done"       // child → parent notification: the script ended
	// methodPending, child → parent notification: the script's code has
	// ended with work pending (timers, threads) that the run waits for.
	methodPending = "pending"
)

// Bridge fds in the child: ExtraFiles[0] and ExtraFiles[1].
const (
	childBridgeOutFD = 3 // child writes requests and done
	childBridgeInFD  = 4 // child reads the run frame and responses
)

// frame is any bridge message. Requests carry ID and Method, responses ID and
// Result or Error, notifications (run, done) Method alone.
type frame struct {
	ID     int64           `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *frameError     `json:"error,omitempty"`
	// Output, on a response, is text the child prints before the call
	// returns: what a skill the call ran printed (CallOutput).
	Output string `json:"output,omitempty"`
}

type frameError struct {
	Message string `json:"message"`
}

type runParams struct {
	Code   string     `json:"code"`
	Limits wireLimits `json:"limits"`
	// Args, when set, is bound as the script's global args (Request.Args).
	Args json.RawMessage `json:"args,omitempty"`
	// Check: compile the code and end without running it (Request.Check).
	Check bool `json:"check,omitempty"`
	// Hold: after done, wait to be stopped (the parent answers at done,
	// Request.OnDone, and then stops every process of the run) instead of
	// exiting; see holdAfterDone.
	Hold bool `json:"hold,omitempty"`
}

// holdMax bounds how long a child holds after done (runParams.Hold): the
// parent stops it within milliseconds, and a child whose parent is gone
// dies with its init (Lua's child also ends its hold when the bridge
// closes).
const holdMax = 30 * time.Second

// wireLimits are the limits a child needs to know about; the parent enforces
// all of them regardless.
type wireLimits struct {
	TimeoutMS      int64 `json:"timeout_ms"`
	CPUTimeMS      int64 `json:"cpu_time_ms"`
	MemoryBytes    int64 `json:"memory_bytes"`
	OutputBytes    int64 `json:"output_bytes"`
	MaxToolCalls   int   `json:"max_tool_calls"`
	MaxConcurrency int   `json:"max_concurrency"`
	MaxFrameBytes  int   `json:"max_frame_bytes"`
}

func toWire(l Limits) wireLimits {
	return wireLimits{
		TimeoutMS:      l.Timeout.Milliseconds(),
		CPUTimeMS:      l.CPUTime.Milliseconds(),
		MemoryBytes:    l.MemoryBytes,
		OutputBytes:    l.OutputBytes,
		MaxToolCalls:   l.MaxToolCalls,
		MaxConcurrency: l.MaxConcurrency,
		MaxFrameBytes:  l.MaxFrameBytes,
	}
}

type callParams struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type searchParams struct {
	Query  string `json:"query"`
	Detail string `json:"detail,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

type doneParams struct {
	Value json.RawMessage `json:"value,omitempty"`
	Error *wireError      `json:"error,omitempty"`
}

type wireError struct {
	Kind string `json:"kind"`
	Line int    `json:"line,omitempty"`
	Msg  string `json:"msg"`
}

// errFrameTooLarge is returned by frameReader.next for a line over its cap.
var errFrameTooLarge = errors.New("bridge frame too large")

// frameReader reads newline-terminated frames of at most max bytes (without
// the newline). It stops reading a line as soon as it is over the cap, so a
// hostile writer cannot make the reader buffer more than max bytes.
type frameReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newFrameReader(r io.Reader, max int) *frameReader {
	return &frameReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next frame, valid until the following call. It returns
// io.EOF at a clean end, io.ErrUnexpectedEOF for a final unterminated line,
// and errFrameTooLarge for a line over the cap.
func (fr *frameReader) next() ([]byte, error) {
	fr.buf = fr.buf[:0]
	for {
		chunk, err := fr.r.ReadSlice('\n')
		if len(fr.buf)+len(chunk) > fr.max+1 { // +1: the newline
			return nil, errFrameTooLarge
		}
		switch {
		case err == nil:
			if len(fr.buf) == 0 {
				return chunk[:len(chunk)-1], nil // no copy for frames that fit the buffer
			}
			fr.buf = append(fr.buf, chunk[:len(chunk)-1]...)
			return fr.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			fr.buf = append(fr.buf, chunk...)
		case errors.Is(err, io.EOF):
			if len(fr.buf)+len(chunk) == 0 {
				return nil, io.EOF
			}
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// frameWriter writes whole frames; safe for concurrent use.
type frameWriter struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// write marshals f and writes it with its newline in one Write call.
func (fw *frameWriter) write(f *frame) error {
	b, err := marshal(f)
	if err != nil {
		return fmt.Errorf("sandbox: encode bridge frame: %w", err)
	}
	return fw.writeRaw(b)
}

// marshal is json.Marshal without HTML escaping ("<" stays "<" in values
// the model reads). Like json.Marshal it compacts every RawMessage, so a
// pretty-printed tool result cannot break the one-frame-per-line framing.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writeRaw writes b, which must be one line of JSON, and a newline: in one
// Write, or, for a frame over 64 KiB, two rather than a copy of it.
func (fw *frameWriter) writeRaw(b []byte) error {
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if len(b) > 64<<10 {
		if _, err := fw.w.Write(b); err != nil {
			return err
		}
		_, err := fw.w.Write(newline)
		return err
	}
	fw.buf.Reset()
	fw.buf.Write(b)
	fw.buf.WriteByte('\n')
	_, err := fw.w.Write(fw.buf.Bytes())
	return err
}

var newline = []byte{'\n'}
