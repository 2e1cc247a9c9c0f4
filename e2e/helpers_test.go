package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// Deadlines. Nothing in e2e waits without one. Each only catches a hang:
// it is what a loaded two-core machine needs (load 10, another build
// beside the tests, e2e's own tests in parallel), stretched further by
// TOOLFOLD_TEST_SLOWDOWN (testlog.Bound).
var (
	startTimeout = testlog.Bound(2 * time.Minute)  // start toolfold and connect to it
	callTimeout  = testlog.Bound(2 * time.Minute)  // one tools/call
	cliTimeout   = testlog.Bound(2 * time.Minute)  // one toolfold CLI command
	exitGrace    = testlog.Bound(30 * time.Second) // for processes to end after close or SIGTERM
)

// testCtx returns a context that ends after d, or shortly before the test binary's
// own deadline, whichever is first.
func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	deadline := time.Now().Add(d)
	if td, ok := t.Deadline(); ok && td.Add(-5*time.Second).Before(deadline) {
		deadline = td.Add(-5 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	t.Cleanup(cancel)
	return ctx
}

// upstream is one entry of proxy.yaml's upstreams: a command (stdio) or a url.
type upstream struct {
	Command string
	Args    []string
	Env     map[string]string
	URL     string
}

// configYAML renders a proxy.yaml. Strings are written JSON-quoted, which YAML
// reads as double-quoted scalars, so paths need no care. sandbox holds raw
// `key: value` lines for the sandbox section.
func configYAML(ups map[string]upstream, sandbox ...string) string {
	var b strings.Builder
	b.WriteString("upstreams:\n")
	for _, name := range slices.Sorted(maps.Keys(ups)) {
		u := ups[name]
		fmt.Fprintf(&b, "  %s:\n", name)
		if u.URL != "" {
			fmt.Fprintf(&b, "    url: %s\n", quote(u.URL))
			continue
		}
		fmt.Fprintf(&b, "    command: %s\n", quote(u.Command))
		if len(u.Args) > 0 {
			fmt.Fprintf(&b, "    args: %s\n", quote(u.Args))
		}
		if len(u.Env) > 0 {
			fmt.Fprintf(&b, "    env: %s\n", quote(u.Env))
		}
	}
	if len(sandbox) > 0 {
		b.WriteString("sandbox:\n")
		for _, line := range sandbox {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	return b.String()
}

func quote(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// writeConfig writes yaml to proxy.yaml in a fresh temp dir and returns its path.
func writeConfig(t *testing.T, yaml string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "proxy.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// npmUpstream runs the npm server with the given short name under node.
func npmUpstream(t *testing.T, short string, args ...string) upstream {
	t.Helper()
	entry := needNPM(t, short)
	return upstream{Command: setup.node, Args: append([]string{entry}, args...)}
}

// withPIDFile wraps u in a shell script that writes its pid (which exec hands on to
// the server) to pidFile, for tests that kill an upstream or look for leftovers.
// The script holds the command line so that no `$` reaches proxy.yaml's ${VAR}
// expansion.
func withPIDFile(t *testing.T, u upstream, pidFile string) upstream {
	t.Helper()
	words := []string{shellQuote(u.Command)}
	for _, a := range u.Args {
		words = append(words, shellQuote(a))
	}
	script := fmt.Sprintf("#!/bin/sh\necho $$ > %s\nexec %s\n", shellQuote(pidFile), strings.Join(words, " "))
	path := filepath.Join(t.TempDir(), "upstream.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return upstream{Command: path, Env: u.Env}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// readPID waits up to d for pidFile to hold a pid different from not.
func readPID(t *testing.T, pidFile string, not int, d time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		data, err := os.ReadFile(pidFile)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil && pid != not {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no new pid in %s after %v (have %q, err %v)", pidFile, d, data, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// syncBuffer collects a child's stderr; Write may run on os/exec's copy goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// match, if set, is called with the whole buffer after each write.
	match func(string)
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.match != nil {
		b.match(b.buf.String())
	}
	return n, err
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// toolfoldProc is a running `toolfold serve` and, over stdio, the client session.
type toolfoldProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	cs     *mcp.ClientSession // nil for --http
	stderr *syncBuffer
	tmp    string // toolfold's TMPDIR, checked for leftovers
	// exited receives cmd.Wait's result (startHTTPProc): a test that
	// stops toolfold itself reads it and puts it back for the cleanup.
	exited chan error

	once     sync.Once
	closeErr error  // from closing the session
	leftover []proc // descendants still running after close
}

// close ends a stdio toolfold by closing the session (stdin; the SDK sends SIGTERM
// after exitGrace) and reports any process it started that is still running
// exitGrace later; those are killed.
func (p *toolfoldProc) close() {
	p.once.Do(func() {
		tree := descendants(p.cmd.Process.Pid)
		p.closeErr = p.cs.Close()
		p.leftover = waitGone(tree, exitGrace)
		if len(p.leftover) > 0 {
			p.t.Errorf("processes left running after toolfold ended:\n%s", formatProcs(p.leftover))
			killAll(p.leftover)
		}
		p.checkStderr()
		checkTmp(p.t, p.tmp)
	})
}

// toolfoldCmd is the toolfold binary with args and a TMPDIR of its own, for
// checkTmp to inspect afterwards. The test's OTEL_* variables are left out, so
// that a developer's telemetry settings do not reach the processes under test,
// and so are its locale variables (isLocaleVar).
func toolfoldCmd(t *testing.T, ctx context.Context, args ...string) (*exec.Cmd, string) {
	t.Helper()
	tmp := t.TempDir()
	cmd := exec.CommandContext(ctx, needToolfold(t), args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") && !isLocaleVar(kv) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	cmd.WaitDelay = exitGrace
	return cmd, tmp
}

// isLocaleVar reports a locale variable (LC_ALL=…, LANG=…): left out of
// toolfold's environment, so that the phone formats in force (the locale's
// region, config.PhoneFromLocale) do not depend on the developer's host.
func isLocaleVar(kv string) bool {
	return strings.HasPrefix(kv, "LC_ALL=") || strings.HasPrefix(kv, "LC_MESSAGES=") || strings.HasPrefix(kv, "LANG=")
}

// checkTmp fails the test if toolfold left files of its own (script workspaces)
// in its TMPDIR.
func checkTmp(t *testing.T, tmp string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(tmp, "toolfold-*")); len(left) > 0 {
		t.Errorf("toolfold left temporary files behind: %v", left)
	}
}

// crashRE matches a Go runtime crash (at the start of a line, where slog's text
// format never writes it) and a race report (anywhere: a sandbox child's reaches
// toolfold's log quoted).
var crashRE = regexp.MustCompile(`(?m)^(panic: |fatal error: )|WARNING: DATA RACE`)

// checkStderr fails the test if toolfold crashed or raced, and logs its stderr
// whenever the test failed.
func (p *toolfoldProc) checkStderr() {
	if m := crashRE.FindString(p.stderr.String()); m != "" {
		p.t.Errorf("toolfold's stderr shows %q", strings.TrimSpace(m))
	}
	if p.t.Failed() {
		p.t.Logf("toolfold stderr:\n%s", p.stderr)
	}
}

// startStdio runs `toolfold serve -c cfg` and connects the go-sdk client to it
// over stdio. The session is closed, and leftovers checked, in t.Cleanup.
func startStdio(t *testing.T, cfg string) *mcp.ClientSession {
	t.Helper()
	return startStdioProc(t, cfg).cs
}

func startStdioProc(t *testing.T, cfg string) *toolfoldProc {
	t.Helper()
	return startStdioEnv(t, cfg)
}

// startStdioEnv is startStdioProc with environment variables ("NAME=value")
// added to toolfold's.
func startStdioEnv(t *testing.T, cfg string, env ...string) *toolfoldProc {
	t.Helper()
	return startStdioClient(t, cfg, nil, nil, env...)
}

// startStdioClient is startStdioEnv with the client's options (its
// handlers) and session options (its protocol version); nil for none.
func startStdioClient(t *testing.T, cfg string, opts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions, env ...string) *toolfoldProc {
	t.Helper()
	p := &toolfoldProc{t: t, stderr: &syncBuffer{}}
	p.cmd, p.tmp = toolfoldCmd(t, context.Background(), "serve", "-c", cfg)
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = p.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, opts)
	transport := &mcp.CommandTransport{Command: p.cmd, TerminateDuration: exitGrace}
	cs, err := client.Connect(testCtx(t, startTimeout), transport, sopts)
	if err != nil {
		if p.cmd.Process != nil {
			_ = p.cmd.Process.Kill()
		}
		t.Fatalf("connecting to toolfold serve -c %s: %v\nstderr:\n%s", cfg, err, p.stderr)
	}
	p.cs = cs
	t.Cleanup(p.close)
	return p
}

var listenRE = regexp.MustCompile(`toolfold: listening on (http://\S+/mcp)`)

// startHTTP runs `toolfold serve -c cfg --http 127.0.0.1:0` and returns the URL it
// reports on stderr. The process gets SIGTERM, and leftovers are checked, in
// t.Cleanup.
func startHTTP(t *testing.T, cfg string) string {
	t.Helper()
	_, url := startHTTPProc(t, cfg)
	return url
}

// startHTTPProc is startHTTP that also returns the process, for its TMPDIR.
func startHTTPProc(t *testing.T, cfg string, env ...string) (*toolfoldProc, string) {
	t.Helper()
	p := &toolfoldProc{t: t}
	urls := make(chan string, 1)
	p.stderr = &syncBuffer{match: func(s string) {
		if m := listenRE.FindStringSubmatch(s); m != nil {
			select {
			case urls <- m[1]:
			default:
			}
		}
	}}
	p.cmd, p.tmp = toolfoldCmd(t, context.Background(), "serve", "-c", cfg, "--http", "127.0.0.1:0")
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	p.exited = exited
	go func() { exited <- p.cmd.Wait() }()
	// From here on, cmd.Wait belongs to the goroutine above.
	ctx := testCtx(t, startTimeout)
	select {
	case url := <-urls:
		t.Cleanup(func() { p.stopHTTP(exited) })
		return p, url
	case err := <-exited:
		t.Fatalf("toolfold serve --http exited before listening: %v\nstderr:\n%s", err, p.stderr)
	case <-ctx.Done():
		_ = p.cmd.Process.Kill()
		<-exited
		t.Fatalf("toolfold serve --http printed no %q line: %v\nstderr:\n%s", listenRE, ctx.Err(), p.stderr)
	}
	return nil, ""
}

func (p *toolfoldProc) stopHTTP(exited <-chan error) {
	tree := descendants(p.cmd.Process.Pid)
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(exitGrace):
		p.t.Errorf("toolfold serve --http did not exit within %v of SIGTERM", exitGrace)
		_ = p.cmd.Process.Kill()
		<-exited
	}
	if left := waitGone(tree, exitGrace); len(left) > 0 {
		p.t.Errorf("processes left running after toolfold ended:\n%s", formatProcs(left))
		killAll(left)
	}
	p.checkStderr()
	checkTmp(p.t, p.tmp)
}

// connectHTTP connects the go-sdk client to url over streamable HTTP.
func connectHTTP(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, nil)
	cs, err := client.Connect(testCtx(t, startTimeout), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// callTool calls a tool with callTimeout. A protocol error fails the test: toolfold
// reports tool and script failures as isError results.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	return callToolCtx(testCtx(t, callTimeout), t, cs, name, args)
}

func callToolCtx(ctx context.Context, t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	return res
}

// text joins the result's text blocks.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// runScript runs Lua code with run_script and returns the result.
func runScript(t *testing.T, cs *mcp.ClientSession, code string) *mcp.CallToolResult {
	t.Helper()
	return callTool(t, cs, "run_script", map[string]any{"code": code, "language": "lua"})
}

// scriptOK runs code and returns its text, failing the test on isError.
func scriptOK(t *testing.T, cs *mcp.ClientSession, code string) string {
	t.Helper()
	res := runScript(t, cs, code)
	if res.IsError {
		t.Fatalf("run_script failed:\n%s\n--- code:\n%s", text(res), code)
	}
	return text(res)
}

// scriptErr runs code and returns its text, failing the test unless isError.
func scriptErr(t *testing.T, cs *mcp.ClientSession, code string) string {
	t.Helper()
	res := runScript(t, cs, code)
	if !res.IsError {
		t.Fatalf("run_script succeeded, want isError:\n%s\n--- code:\n%s", text(res), code)
	}
	return text(res)
}

// returned decodes the `=> <json>` line of run_script's text into v.
func returned(t *testing.T, out string, v any) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "=> "); ok {
			if err := json.Unmarshal([]byte(rest), v); err != nil {
				t.Fatalf("return value %q: %v\nfull text:\n%s", rest, err, out)
			}
			return
		}
	}
	t.Fatalf("no `=> <json>` line in run_script text:\n%s", out)
}

var footerRE = regexp.MustCompile(`(?m)^\[toolfold: (\d+) tool calls?\b.*\]$`)

// footerCalls returns the tool-call count from run_script's footer line.
func footerCalls(t *testing.T, out string) int {
	t.Helper()
	m := footerRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no footer line matching %s in run_script text:\n%s", footerRE, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// luaString quotes s as a Lua string literal.
func luaString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`)
	return `"` + r.Replace(s) + `"`
}

var qualifiedRE = regexp.MustCompile(`^\s*(?:[-*]|\d+[.)])?\s*` + "`?" + `([A-Za-z0-9_-]+\.[A-Za-z0-9_.-]*[A-Za-z0-9_])`)

// qualifiedNames reads search_tools' `name` detail: one qualified name per line,
// possibly bulleted or numbered; other lines are ignored.
func qualifiedNames(out string) []string {
	var names []string
	for _, line := range strings.Split(out, "\n") {
		if m := qualifiedRE.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		}
	}
	return names
}

// cliResult is what a toolfold CLI command did.
type cliResult struct {
	stdout, stderr string
	code           int
}

// runCLI runs the toolfold binary with args, no stdin, and cliTimeout.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	return runCLIWithin(t, cliTimeout, args...)
}

// runCLIWithin runs the toolfold binary with args and no stdin; not ending within
// d fails the test.
func runCLIWithin(t *testing.T, d time.Duration, args ...string) cliResult {
	t.Helper()
	ctx := testCtx(t, d)
	cmd, tmp := toolfoldCmd(t, ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := cliResult{stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("toolfold %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), ctx.Err(), res.stdout, res.stderr)
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("toolfold %s: %v", strings.Join(args, " "), err)
	}
	if m := crashRE.FindString(res.stderr); m != "" {
		t.Errorf("toolfold %s: stderr shows %q:\n%s", strings.Join(args, " "), strings.TrimSpace(m), res.stderr)
	}
	checkTmp(t, tmp)
	return res
}

// namesServer reports whether out names the upstream server by itself, not only
// inside a qualified tool name (memory.read_graph, tools.memory.read_graph) or a
// package or path (server-memory), which the text of any failed call through
// that server may hold.
func namesServer(out, server string) bool {
	ident := func(c byte) bool {
		return c == '_' || c == '-' || c == '/' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	for i := 0; ; {
		j := strings.Index(out[i:], server)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(server)
		i = start + 1
		if start > 0 && (ident(out[start-1]) || out[start-1] == '.') {
			continue
		}
		if end < len(out) && ident(out[end]) {
			continue
		}
		if end+1 < len(out) && out[end] == '.' && ident(out[end+1]) {
			continue // server.tool
		}
		return true
	}
}

// checkUnavailable fails the test unless out, the text of a failed call, tells
// the model what it must learn when an upstream went away: that the server is
// unavailable or was disconnected, and which server.
func checkUnavailable(t *testing.T, out, server string) {
	t.Helper()
	if !strings.Contains(out, "is unavailable") && !strings.Contains(out, "disconnected") {
		t.Errorf("error does not say upstream %q is unavailable or disconnected:\n%s", server, out)
	}
	if !namesServer(out, server) {
		t.Errorf("error names the server %q only inside a tool name, or not at all:\n%s", server, out)
	}
}
