package e2e

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// sandboxChildArg is the argument toolfold re-executes itself with to run a script.
const sandboxChildArg = "__toolfold-sandbox-child"

// exitDeadline is how long toolfold may take to exit with a script running. It is
// hang detection, not a speed claim: the script would run for minutes.
var exitDeadline = testlog.Bound(time.Minute)

// TestShutdown: once the client goes (stdin closed) or toolfold is signalled, no
// upstream it started is left running.
func TestShutdown(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"stdin closed", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			ups, _ := npmTrio(t)
			pidFiles := map[string]string{}
			for name, u := range ups {
				pidFiles[name] = t.TempDir() + "/" + name + ".pid"
				ups[name] = withPIDFile(t, u, pidFiles[name])
			}
			p := startStdioProc(t, writeConfig(t, configYAML(ups)))
			if tools, _ := listTools(t, p.cs); len(tools) != 2 {
				t.Fatalf("%d tools", len(tools))
			}
			pids := map[string]int{}
			for name, f := range pidFiles {
				pids[name] = readPID(t, f, 0, startTimeout)
			}
			start := time.Now()
			if how == "SIGTERM" {
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
				// On the signal alone: close, below, also closes toolfold's stdin.
				// Until then nothing reaps toolfold, and pidAlive counts a zombie as gone.
				for deadline := time.Now().Add(exitGrace); pidAlive(p.cmd.Process.Pid); time.Sleep(20 * time.Millisecond) {
					if time.Now().After(deadline) {
						t.Errorf("toolfold still running %v after SIGTERM", exitGrace)
						break
					}
				}
			}
			p.close()
			if how == "stdin closed" && (time.Since(start) >= exitGrace || p.closeErr != nil) {
				t.Errorf("toolfold did not exit cleanly within %v of its stdin closing: %v", exitGrace, p.closeErr)
			}
			t.Logf("toolfold exited after %v: %v", time.Since(start).Round(time.Millisecond), p.cmd.ProcessState)
			for name, pid := range pids {
				if pidAlive(pid) {
					t.Errorf("upstream %s (pid %d) still running after toolfold exited", name, pid)
				}
			}
		})
	}
}

// rawStdio is a `toolfold serve` on pipes of the test's own. The go-sdk's
// ClientSession.Close closes toolfold's stdin only once no call is in flight;
// over these pipes the test closes it whenever it likes, as a client that quits
// does.
type rawStdio struct {
	*toolfoldProc
	stdin  io.WriteCloser
	exited chan error // receives cmd.Wait's result once toolfold has exited
}

// startStdioRaw runs `toolfold serve -c cfg` and connects the go-sdk client to it
// over rawStdio's pipes. In t.Cleanup toolfold is killed if still running (with
// whatever runs below it) and its stderr and TMPDIR are checked.
func startStdioRaw(t *testing.T, cfg string) *rawStdio {
	t.Helper()
	p := &rawStdio{toolfoldProc: &toolfoldProc{t: t, stderr: &syncBuffer{}}, exited: make(chan error, 1)}
	p.cmd, p.tmp = toolfoldCmd(t, context.Background(), "serve", "-c", cfg)
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		if pidAlive(p.cmd.Process.Pid) {
			self, _ := readProc(p.cmd.Process.Pid)
			killAll(append(descendants(self.pid), self))
		}
		<-p.exited
		if p.cs != nil {
			_ = p.cs.Close() // toolfold is gone: nothing is in flight any more
		}
		p.checkStderr()
		checkTmp(t, p.tmp)
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, nil)
	p.cs, err = client.Connect(testCtx(t, startTimeout), &mcp.IOTransport{Reader: stdout, Writer: p.stdin}, nil)
	if err != nil {
		t.Fatalf("connecting to toolfold serve -c %s: %v\nstderr:\n%s", cfg, err, p.stderr)
	}
	return p
}

// waitSandboxChild waits up to d for a script process below root and returns it.
// The run_script call, running meanwhile, must not end first.
func waitSandboxChild(t *testing.T, root int, d time.Duration, call <-chan error) proc {
	t.Helper()
	for deadline := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		for _, p := range descendants(root) {
			if strings.Contains(p.cmdline, sandboxChildArg) {
				return p
			}
		}
		select {
		case err := <-call:
			t.Fatalf("run_script of an endless loop ended (err %v) before a sandbox child was seen", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process with %q in its command line below toolfold (pid %d) after %v", sandboxChildArg, root, d)
		}
	}
}

// TestShutdownScriptRunning: with a script running that would run for minutes
// (sandbox timeout 5m), SIGTERM or the client closing toolfold's stdin still ends
// toolfold at once, and it leaves neither the script's process nor an upstream
// running.
func TestShutdownScriptRunning(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"stdin closed", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ups, _ := npmTrio(t)
			for name, u := range ups {
				ups[name] = withPIDFile(t, u, filepath.Join(t.TempDir(), name+".pid"))
			}
			p := startStdioRaw(t, writeConfig(t, configYAML(ups, "timeout: 5m")))
			pid := p.cmd.Process.Pid

			call := make(chan error, 1)
			go func() {
				_, err := p.cs.CallTool(testCtx(t, 2*time.Minute), &mcp.CallToolParams{Name: "run_script",
					Arguments: map[string]any{"code": "while true do end"}})
				call <- err
			}()
			child := waitSandboxChild(t, pid, startTimeout, call)
			tree := descendants(pid) // the script's process and the upstreams

			start := time.Now()
			switch how {
			case "SIGTERM":
				if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
					t.Fatal(err)
				}
			case "stdin closed":
				if err := p.stdin.Close(); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-p.exited:
				p.exited <- err // for the cleanup
				t.Logf("toolfold exited %v after %s: %v", time.Since(start).Round(time.Millisecond), how, err)
			case <-testCtx(t, exitDeadline).Done():
				t.Errorf("toolfold still running %v after %s, with run_script in a 5m loop: shutdown waits for the script\n"+
					"running below it:\n%s", time.Since(start).Round(time.Millisecond), how, formatProcs(tree))
				self, _ := readProc(pid)
				killAll(append(tree, self))
				// Killed, it could not remove the script's workspace: not its fault.
				left, _ := filepath.Glob(filepath.Join(p.tmp, "toolfold-*"))
				for _, f := range left {
					_ = os.RemoveAll(f)
				}
				return
			}
			if left := waitGone([]proc{child}, exitGrace); len(left) > 0 {
				t.Errorf("the script's process (pid %d) still running %v after toolfold exited: %s", child.pid, exitGrace, child.cmdline)
			}
			if left := waitGone(tree, exitGrace); len(left) > 0 {
				t.Errorf("processes left running after toolfold exited:\n%s", formatProcs(left))
				killAll(left)
			}
			<-call // toolfold is gone, so the call has ended, one way or another
		})
	}
}

// TestShutdownLogsNoError: a normal stop (the client closing stdin, SIGTERM
// or SIGINT, over stdio and over HTTP with a session open) exits 0 and
// logs nothing at ERROR: the go-sdk's Server.Run logged a signalled stdio
// stop as "server run cancelled" at ERROR, which read as a failure.
func TestShutdownLogsNoError(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		transport string
		how       string
	}{
		{"stdio", "stdin closed"}, {"stdio", "SIGTERM"}, {"stdio", "SIGINT"},
		{"http", "SIGTERM"}, {"http", "SIGINT"},
	} {
		t.Run(tc.transport+" "+tc.how, func(t *testing.T) {
			t.Parallel()
			cfg := writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}))
			var p *toolfoldProc
			var exited chan error
			if tc.transport == "stdio" {
				raw := startStdioRaw(t, cfg)
				p, exited = raw.toolfoldProc, raw.exited
				listTools(t, p.cs)
				if tc.how == "stdin closed" {
					if err := raw.stdin.Close(); err != nil {
						t.Fatal(err)
					}
				}
			} else {
				var url string
				p, url = startHTTPProc(t, cfg, "TOOLFOLD_LOG=info")
				exited = p.exited
				p.cs = connectHTTP(t, url) // left open: the stop ends it
				listTools(t, p.cs)
			}
			if sig := map[string]os.Signal{"SIGTERM": syscall.SIGTERM, "SIGINT": syscall.SIGINT}[tc.how]; sig != nil {
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
			}
			select {
			case err := <-exited:
				exited <- err // for the cleanup
				if err != nil {
					t.Errorf("toolfold exited with %v after %s, want 0\nstderr:\n%s", err, tc.how, p.stderr)
				}
			case <-testCtx(t, exitDeadline).Done():
				t.Fatalf("toolfold still running %v after %s\nstderr:\n%s", exitDeadline, tc.how, p.stderr)
			}
			for _, line := range strings.Split(p.stderr.String(), "\n") {
				if strings.Contains(line, "level=ERROR") {
					t.Errorf("a normal stop (%s) logged at ERROR: %s", tc.how, line)
				}
			}
		})
	}
}
