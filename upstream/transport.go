package upstream

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

// maxUpstreamFrame bounds one JSON-RPC message read from a stdio upstream.
// Upstreams are untrusted: a server that writes an endless line must not
// exhaust the proxy's memory. The connection fails instead, and the
// upstream is restarted.
const maxUpstreamFrame = 32 << 20

// stderrTail is how many of an upstream's last stderr lines are kept to
// explain a failure ("exited: ... last said: ...").
const stderrTail = 5

// stdioTransport starts a stdio upstream. It differs from mcp.CommandTransport
// in four ways the proxy needs: the child runs in its own process group, so
// stopping it also stops what it spawned (npx starts node as a grandchild);
// its stderr is logged and its last lines explain a crash; inbound frames
// are size-capped; and messages are read without the go-sdk's extra
// goroutine and decoding passes (lineConn).
type stdioTransport struct {
	up    config.Upstream
	log   *slog.Logger
	tail  *lineTail
	scrub func(string) string // upstream.scrub
	order *noteOrder          // counts notifications as read (order.go); nil: none

	stderrDone chan struct{} // closed when stderr reached EOF
	exited     chan struct{} // closed when the process was reaped

	mu   sync.Mutex
	pid  int
	exit string // how the process ended, once reaped
}

func newStdioTransport(up config.Upstream, log *slog.Logger) *stdioTransport {
	return &stdioTransport{up: up, log: log, tail: &lineTail{max: stderrTail},
		stderrDone: make(chan struct{}), exited: make(chan struct{})}
}

// Connect starts the process. The pipes are made here rather than by
// os/exec: exec.Cmd.Wait closes the pipes it made as soon as the process
// exits, which would cut off the last stdout frame and the last stderr
// lines that explain a crash.
func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW)
		return nil, err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		closeAll(stdinR, stdinW, stdoutR, stdoutW)
		return nil, err
	}
	cmd := exec.Command(t.up.Command, t.up.Args...)
	cmd.Dir = t.up.Cwd
	cmd.Env = upstreamEnv(os.Environ(), t.up.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, stderrW
	cmd.SysProcAttr = upstreamProcAttr()
	err = cmd.Start()
	closeAll(stdinR, stdoutW, stderrW) // the child's ends
	if err != nil {
		closeAll(stdinW, stdoutR, stderrR)
		close(t.stderrDone)
		close(t.exited)
		return nil, fmt.Errorf("start %s: %w (check command and PATH)", t.up.Command, err)
	}
	t.mu.Lock()
	t.pid = cmd.Process.Pid
	t.mu.Unlock()
	go func() {
		defer close(t.stderrDone)
		defer stderrR.Close()
		t.logStderr(stderrR)
	}()
	go func() {
		_ = cmd.Wait()
		t.mu.Lock()
		t.exit = cmd.ProcessState.String()
		t.mu.Unlock()
		close(t.exited)
	}()
	w := &procWriter{WriteCloser: stdinW, pid: cmd.Process.Pid, done: t.exited}
	return stdioConn(stdoutR, w, t.order), nil
}

// stdioConn is the connection over an upstream's stdout and stdin; order
// (nil: none) counts its notifications as they are read.
func stdioConn(r io.ReadCloser, w io.WriteCloser, order *noteOrder) mcp.Connection {
	conn := newLineConn(r, w, maxUpstreamFrame)
	if order == nil {
		return conn
	}
	return &orderedConn{Connection: conn, o: order}
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// LastStderr returns the upstream's last stderr lines, joined, once stderr
// is drained (or after a short wait: a grandchild may hold it open).
func (t *stdioTransport) LastStderr() string {
	select {
	case <-t.stderrDone:
	case <-time.After(500 * time.Millisecond):
	}
	return t.tail.String()
}

// ExitState describes how the process ended, waiting briefly for it to be
// reaped; "" if it is still running.
func (t *stdioTransport) ExitState() string {
	select {
	case <-t.exited:
	case <-time.After(500 * time.Millisecond):
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.exit
}

// kill ends the process group at once. It is for connection attempts that
// failed after the process started (the SDK does not always close the
// connection then).
func (t *stdioTransport) kill() {
	t.mu.Lock()
	pid := t.pid
	t.mu.Unlock()
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// stderrLineCap bounds one logged stderr line, in bytes (before the cut
// mark). A longer line is read up to twice this, scrubbed whole, then cut.
const stderrLineCap = 2048

// cutMark ends a stderr line that was cut.
const cutMark = "…[cut]"

func (t *stdioTransport) logStderr(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := t.readStderrLine(br)
		if line != "" {
			t.tail.add(line)
			t.log.Debug("upstream stderr", "line", line)
		}
		if err != nil {
			return
		}
	}
}

// readStderrLine reads one stderr line, scrubbed and at most
// stderrLineCap bytes plus the cut mark. Scrubbing comes before the cut,
// so a value that straddles the cap is replaced whole; what the line
// holds past the read window (2 × the cap) is dropped, and the partial
// word at either cut is dropped with it, so no half of a value, which
// the scrubber might not recognize, is kept.
func (t *stdioTransport) readStderrLine(br *bufio.Reader) (string, error) {
	line, long, err := readLineCapped(br, 2*stderrLineCap)
	if long {
		line = cutAtWord(line)
	}
	if line != "" && t.scrub != nil {
		line = t.scrub(line)
	}
	if len(line) > stderrLineCap {
		line, long = cutAtWord(line[:stderrLineCap]), true
	}
	line = strings.TrimSpace(line)
	if long {
		line = strings.TrimSpace(line + " " + cutMark)
	}
	return line, err
}

// readLineCapped reads one line, keeping at most max bytes of it; long
// reports that the line had more.
func readLineCapped(br *bufio.Reader, max int) (line string, long bool, err error) {
	var b strings.Builder
	total := 0
	for {
		frag, isPrefix, err := br.ReadLine()
		total += len(frag)
		if n := min(len(frag), max-b.Len()); n > 0 {
			b.Write(frag[:n])
		}
		if err != nil || !isPrefix {
			return b.String(), total > max, err
		}
	}
}

// cutAtWord drops the end of s back to the last delimiter, so a cut
// mid-value keeps none of it: the partial word, and before it any words
// of digits and number punctuation (a card or phone number written in
// groups, "4111 1111 1111 1", whose rest was cut off).
func cutAtWord(s string) string {
	i := strings.LastIndexFunc(s, isCutDelim)
	if i < 0 {
		return ""
	}
	if strings.ContainsRune("]}>", rune(s[i])) {
		i++ // a closing bracket stays: "[EMAIL]"
	}
	s = strings.TrimRightFunc(s[:i], unicode.IsSpace)
	for {
		j := strings.LastIndexFunc(s, unicode.IsSpace)
		w := s[j+1:]
		if w == "" || !isNumberWord(w) {
			return s
		}
		s = strings.TrimRightFunc(s[:j+1], unicode.IsSpace)
	}
}

// isCutDelim reports whether r ends a word no personal value spans
// (values may hold ".@-+_:/=()" but not these).
func isCutDelim(r rune) bool {
	return unicode.IsSpace(r) || strings.ContainsRune("\"'`,;<>{}[]|", r)
}

// isNumberWord reports whether w is a group of a number written in
// parts: digits and "+-.()/" (and quotes or brackets around them), with
// at least one digit.
func isNumberWord(w string) bool {
	digit := false
	for _, r := range w {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case strings.ContainsRune("+-.()/", r), isCutDelim(r):
		default:
			return false
		}
	}
	return digit
}

// procWriter is the upstream's stdin. Closing it stops the process the way
// the MCP spec asks: close stdin, wait, SIGTERM, wait, SIGKILL, and always
// the whole process group.
type procWriter struct {
	io.WriteCloser
	pid  int
	done <-chan struct{}
}

// terminateGrace is how long a stdio upstream gets after stdin closes, and
// again after SIGTERM.
var terminateGrace = 2 * time.Second

func (w *procWriter) Close() error {
	err := w.WriteCloser.Close()
	wait := func() bool {
		select {
		case <-w.done:
			return true
		case <-time.After(terminateGrace):
			return false
		}
	}
	if !wait() {
		_ = syscall.Kill(-w.pid, syscall.SIGTERM)
		if !wait() {
			_ = syscall.Kill(-w.pid, syscall.SIGKILL)
			<-w.done
		}
	}
	// The leader is gone; take down anything it left in its group.
	_ = syscall.Kill(-w.pid, syscall.SIGKILL)
	return err
}

// upstreamEnv is the proxy's environment with the upstream's additions.
// Upstreams run with the user's environment, as they would from the client
// (npx needs PATH and HOME); only scripts get an empty one.
func upstreamEnv(base []string, add map[string]string) []string {
	if len(add) == 0 {
		return base
	}
	env := make([]string, 0, len(base)+len(add))
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := add[k]; !ok {
			env = append(env, kv)
		}
	}
	keys := make([]string, 0, len(add))
	for k := range add {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+add[k])
	}
	return env
}

// lineTail keeps the last few lines written to it.
type lineTail struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (t *lineTail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, s)
	if len(t.lines) > t.max {
		t.lines = t.lines[len(t.lines)-t.max:]
	}
}

// maxTailBytes bounds the stderr quoted in an error: it reaches the model
// in every failed call and search result while the upstream is down.
const maxTailBytes = 400

// String returns the last lines, joined, keeping at most maxTailBytes of
// the end (the last words usually say why a process died).
func (t *lineTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.Join(t.lines, " | ")
	if len(s) > maxTailBytes {
		cut := len(s) - maxTailBytes
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		s = "…" + s[cut:]
	}
	return s
}
