package proxy

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/passthrough"
)

// Live progress of a run_script run, or of a skill a client calls as a tool
// (expose: passthrough or hybrid): what the script prints reaches the
// client while the run runs, as notifications/progress when the request
// carries a progress token, and as info log messages (notifications/message)
// when the client's logging level lets info through. Each message is
// tokenized as the final result is (piiState.runOutput, tokenizer.go);
// the result itself is unchanged and still holds all the output.
//
// Output is coalesced: at most one message per progressInterval, each of at
// most progressChunk bytes, cut after a line so that a value split across
// two prints' pieces is still scanned whole. A partial line waits for its
// end: were it sent after a pause, a script could print a value in two
// pieces (erin@exa, pause, mple.com) that no scan sees whole. A line longer
// than progressChunk is cut at its last space within the chunk. What is
// still unsent when the run ends is dropped: it is in the result.

const (
	progressInterval = 250 * time.Millisecond // at most 4 messages a second
	progressChunk    = 4 << 10                // bytes of output per message at most
)

// runProgress passes one run's output on to its client.
type runProgress struct {
	ss    *mcp.ServerSession
	ctx   context.Context // the client's request
	token any             // the request's progress token; nil: none
	log   bool            // send log messages too
	// logger names the run in log messages: "run_script" (the zero
	// value), or the skill a client called (skills.NAME).
	logger string
	scan   func(string) string

	mu      sync.Mutex
	pending []byte
	sent    int64 // bytes of output sent: the progress value
	stopped bool

	kick chan struct{}
	quit chan struct{}
	done chan struct{}
}

type progressKey struct{}

// withProgress returns ctx carrying a runProgress for req when its client
// will hear of the run's output: req has a progress token, or the level it
// logs at lets info through. The run starts it (start).
func withProgress(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req.Session == nil || req.Params == nil {
		return ctx
	}
	token := req.Params.GetProgressToken()
	log := logsInfo(requestLevel(ctx, req.Params.Meta))
	if token == nil && !log {
		return ctx
	}
	return context.WithValue(ctx, progressKey{}, &runProgress{ss: req.Session, ctx: ctx, token: token, log: log})
}

// requestLevel is the logging level a request is answered at: the one its
// _meta names (2026-07-28), else the one its session set.
func requestLevel(ctx context.Context, m mcp.Meta) mcp.LoggingLevel {
	if l, ok := m[mcp.MetaKeyLogLevel].(string); ok && l != "" {
		return mcp.LoggingLevel(l)
	}
	if s := sessionOf(ctx); s != nil {
		return s.LogLevel()
	}
	return ""
}

// logsInfo reports whether level l lets info messages through.
func logsInfo(l mcp.LoggingLevel) bool {
	return l != "" && passthrough.LevelRank(l) <= passthrough.LevelRank("info")
}

// progressOf is the runProgress of ctx, or nil.
func progressOf(ctx context.Context) *runProgress {
	r, _ := ctx.Value(progressKey{}).(*runProgress)
	return r
}

// start begins sending, scanning each message with scan, and returns the
// sandbox.Request.OnOutput to feed it. Call stop before answering.
func (r *runProgress) start(scan func(string) string) func([]byte) {
	r.scan = scan
	r.kick = make(chan struct{}, 1)
	r.quit = make(chan struct{})
	r.done = make(chan struct{})
	go r.loop()
	return r.add
}

// add takes a piece of output; it never blocks on the client.
func (r *runProgress) add(p []byte) {
	r.mu.Lock()
	if !r.stopped {
		r.pending = append(r.pending, p...)
	}
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// stop ends the sending, waiting for a message being sent, so that none
// reaches the client after the result.
func (r *runProgress) stop() {
	r.mu.Lock()
	r.stopped = true
	r.mu.Unlock()
	close(r.quit)
	<-r.done
}

// loop sends what add took, one message per interval at most.
func (r *runProgress) loop() {
	defer close(r.done)
	for {
		select {
		case <-r.quit:
			return
		case <-r.kick:
		}
		for r.flush() {
			t := time.NewTimer(progressInterval)
			select {
			case <-r.quit:
				t.Stop()
				return
			case <-t.C:
			}
		}
	}
}

// flush sends the next message, if one is due. It reports whether to look
// again after an interval: it sent one.
func (r *runProgress) flush() bool {
	text, progress, again := r.next()
	if text != "" {
		r.send(r.scan(text), progress)
	}
	return again
}

// next takes the next message off pending: whole lines up to
// progressChunk, or a longer line cut.
func (r *runProgress) next() (text string, progress float64, again bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.pending) == 0 {
		return "", 0, false
	}
	n := messageLen(r.pending)
	if n == 0 {
		return "", 0, false // a partial line: the next add kicks again
	}
	text = string(r.pending[:n])
	r.pending = append(r.pending[:0], r.pending[n:]...)
	r.sent += int64(n)
	return text, float64(r.sent), true
}

// messageLen is how much of p the next message takes: up to the last line
// end within progressChunk; for a longer line, up to its last space within
// progressChunk, else progressChunk bytes not splitting a character; 0 to
// wait for a partial line's end.
func messageLen(p []byte) int {
	head := p[:min(len(p), progressChunk)]
	for i := len(head) - 1; i >= 0; i-- {
		if head[i] == '\n' {
			return i + 1
		}
	}
	if len(p) >= progressChunk {
		for i := len(head) - 1; i > 0; i-- {
			if head[i] == ' ' || head[i] == '\t' {
				return i + 1
			}
		}
		return max(len(utf8Prefix(p, progressChunk)), 1)
	}
	return 0
}

// send tells the client text, the output the run printed since the last
// message; progress is all the output sent so far, in bytes.
func (r *runProgress) send(text string, progress float64) {
	ctx, cancel := context.WithTimeout(r.ctx, passthrough.NotifyTimeout)
	defer cancel()
	if r.token != nil {
		_ = r.ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: r.token, Progress: progress, Message: text})
	}
	if r.log {
		logger := r.logger
		if logger == "" {
			logger = "run_script"
		}
		_ = r.ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: logger, Data: text}) // filtered by the session's level
	}
}
