package proxy

import (
	"bufio"
	"context"
	"errors"
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
// in three ways the proxy needs: the child runs in its own process group, so
// stopping it also stops what it spawned (npx starts node as a grandchild);
// its stderr is logged and its last lines explain a crash; and inbound frames
// are size-capped.
type stdioTransport struct {
	up   config.Upstream
	log  *slog.Logger
	tail *lineTail

	mu  sync.Mutex
	cmd *exec.Cmd
}

func newStdioTransport(up config.Upstream, log *slog.Logger) *stdioTransport {
	return &stdioTransport{up: up, log: log, tail: &lineTail{max: stderrTail}}
}

// Connect starts the process.
func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	cmd := exec.Command(t.up.Command, t.up.Args...)
	cmd.Dir = t.up.Cwd
	cmd.Env = upstreamEnv(os.Environ(), t.up.Env)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", t.up.Command, err)
	}
	t.mu.Lock()
	t.cmd = cmd
	t.mu.Unlock()
	done := make(chan struct{})
	go t.logStderr(stderr)
	go func() { _ = cmd.Wait(); close(done) }()
	w := &procWriter{WriteCloser: stdin, pid: cmd.Process.Pid, done: done}
	tr := &mcp.IOTransport{Reader: io.NopCloser(stdout), Writer: w, MaxLineLength: maxUpstreamFrame}
	return tr.Connect(ctx)
}

// LastStderr returns the upstream's last stderr lines, joined.
func (t *stdioTransport) LastStderr() string { return t.tail.String() }

// ExitState describes how the process ended, or "" while it runs.
func (t *stdioTransport) ExitState() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cmd == nil || t.cmd.ProcessState == nil {
		return ""
	}
	return t.cmd.ProcessState.String()
}

func (t *stdioTransport) logStderr(r io.Reader) {
	br := bufio.NewReaderSize(r, 4096)
	for {
		line, err := readLineCapped(br, 2048)
		if line != "" {
			t.tail.add(line)
			t.log.Debug("upstream stderr", "line", line)
		}
		if err != nil {
			return
		}
	}
}

// readLineCapped reads one line, keeping at most max bytes of it.
func readLineCapped(br *bufio.Reader, max int) (string, error) {
	var b strings.Builder
	for {
		frag, isPrefix, err := br.ReadLine()
		if b.Len() < max {
			n := min(len(frag), max-b.Len())
			b.Write(frag[:n])
		}
		if err != nil || !isPrefix {
			return strings.TrimSpace(b.String()), err
		}
	}
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

func (t *lineTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(t.lines, " | ")
}

var errClosed = errors.New("proxy is shutting down")
