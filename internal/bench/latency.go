package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
	upool "github.com/toolfold/toolfold/upstream" // beside this package's own type upstream
)

// LatencyRow is one measured path: percentiles over its samples.
type LatencyRow struct {
	Name    string
	Samples string
	P50     time.Duration
	P99     time.Duration
	Note    string // set when the path was not measured, and why

	// AddedTo names the row this one was measured interleaved with, and
	// Added is the median, over the rounds, of this path's time minus that
	// row's (measureInterleaved); "" for rows measured alone.
	AddedTo string
	Added   time.Duration
}

func latencyRow(name, samples string, d []time.Duration) LatencyRow {
	slices.Sort(d)
	r := LatencyRow{Name: name, Samples: samples}
	if len(d) > 0 {
		r.P50 = d[(len(d)-1)/2]
		r.P99 = d[min(len(d)-1, (len(d)*99+99)/100-1)]
	}
	return r
}

// latencyCase is one path to time: call does one round trip; before, when
// set, runs before each one, off the clock.
type latencyCase struct {
	name   string
	n      int
	call   func(context.Context) error
	before func()
	note   string // when call is nil: why the path is not measured
}

func (c latencyCase) measure(ctx context.Context) (LatencyRow, error) {
	if c.call == nil {
		return LatencyRow{Name: c.name, Note: c.note}, nil
	}
	before := c.before
	if before == nil {
		before = func() {}
	}
	before()
	if err := c.call(ctx); err != nil { // warm-up, not counted
		return LatencyRow{}, fmt.Errorf("%s: %w", c.name, err)
	}
	d := make([]time.Duration, 0, c.n)
	for range c.n {
		before()
		start := time.Now()
		if err := c.call(ctx); err != nil {
			return LatencyRow{}, fmt.Errorf("%s: %w", c.name, err)
		}
		d = append(d, time.Since(start))
	}
	return latencyRow(c.name, fmt.Sprintf("%d", c.n), d), nil
}

// echoArgs is the call every latency path makes: everything's echo.
var echoArgs = map[string]any{"message": "hi"}

const echoScript = `return tools.everything.echo{message = "hi"}`

func (e *env) latency(ctx context.Context, rep *Report) error {
	calls, runs, warmRuns := 200, 100, 50
	if e.opts.Quick {
		calls, runs, warmRuns = 10, 3, 3
	}
	var cases []latencyCase
	cases = append(cases, latencyCase{name: "direct: client → everything echo (stdio)", n: calls, call: func(ctx context.Context) error {
		_, err := e.direct["everything"].call(ctx, "echo", echoArgs)
		return err
	}})

	pool, err := e.upstreamPool(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	cases = append(cases, latencyCase{name: "toolfold's upstream path (upstream.Pool.CallTool → echo)", n: calls, call: func(ctx context.Context) error {
		res, err := pool.CallTool(ctx, "everything", &mcp.CallToolParams{Name: "echo", Arguments: echoArgs})
		if err == nil && res.IsError {
			err = fmt.Errorf("echo failed: %s", resultText(res))
		}
		return err
	}})
	pt, stopPT, err := e.passthroughCase(ctx, calls)
	if err != nil {
		return err
	}
	defer stopPT()
	cases = append(cases, pt)
	hop, stopHop, err := e.sdkHopCase(ctx, calls)
	if err != nil {
		return err
	}
	defer stopHop()
	cases = append(cases, hop)
	// The four echo calls, direct and through each hop, are compared with
	// each other: measured together, round by round.
	rows, err := measureInterleaved(ctx, cases)
	if err != nil {
		return err
	}
	rep.Latency = append(rep.Latency, rows...)
	cases = nil
	echoRun := func(ctx context.Context) error { return e.runOK(ctx, echoScript, "lua") }
	cases = append(cases,
		latencyCase{name: "run_script, one echo call (in-process toolfold, cold)", n: runs, call: echoRun, before: e.coldStart},
		latencyCase{name: "run_script, one echo call (in-process toolfold, warm)", n: warmRuns, call: echoRun, before: think})

	bin, err := e.serveBinary(ctx, e.cfg)
	if err != nil {
		return err
	}
	defer bin.Close()
	cases = append(cases, latencyCase{name: "run_script, one echo call (toolfold binary, stdio, warm)", n: warmRuns, before: think, call: func(ctx context.Context) error {
		_, err := bin.call(ctx, "run_script", map[string]any{"code": echoScript})
		return err
	}})
	cases = append(cases, latencyCase{name: searchCaseName(rep), n: calls, call: func(ctx context.Context) error {
		_, err := bin.call(ctx, "search_tools", map[string]any{"query": "echo a message"})
		return err
	}})
	for _, lang := range e.prox.Languages() {
		l, _ := sandbox.LookupLanguage(lang)
		code := l.Trivial
		if code == "" {
			cases = append(cases, latencyCase{name: "run_script overhead, " + lang, note: "no trivial script known for this language: set its sandbox.Language.Trivial"})
			continue
		}
		run := func(ctx context.Context) error { return e.runOK(ctx, code, lang) }
		cases = append(cases,
			latencyCase{name: "run_script overhead, " + lang + " (no tool call, cold)", n: runs, call: run, before: e.coldStart},
			latencyCase{name: "run_script overhead, " + lang + " (no tool call, warm)", n: warmRuns, call: run, before: think})
	}
	for _, c := range cases {
		row, err := c.measure(ctx)
		if err != nil {
			return err
		}
		rep.Latency = append(rep.Latency, row)
	}
	return nil
}

// passthroughCase times a plain tools/call of everything's echo through
// an in-process toolfold in passthrough mode (expose: passthrough), in
// front of its own everything server: the direct row's call, plus toolfold.
// The caller runs stop when the measurements are done.
func (e *env) passthroughCase(ctx context.Context, n int) (c latencyCase, stop func(), err error) {
	var ups []upstream
	for _, u := range e.sample {
		if u.Name == "everything" {
			ups = append(ups, u)
		}
	}
	path := filepath.Join(e.work, "passthrough.yaml")
	if err := writeConfig(path, ups); err != nil {
		return c, nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return c, nil, err
	}
	b = []byte(strings.TrimSuffix(string(b), "}\n") + `, "expose": "passthrough"}` + "\n")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return c, nil, err
	}
	p, pc, err := e.startProxy(ctx, path, len(ups))
	if err != nil {
		return c, nil, fmt.Errorf("passthrough: %w", err)
	}
	stop = func() { pc.Close(); p.Close() }
	return latencyCase{name: "passthrough: client → toolfold → echo (in-process toolfold)", n: n, call: func(ctx context.Context) error {
		_, err := pc.call(ctx, "echo", echoArgs)
		return err
	}}, stop, nil
}

// runOK runs a script in-process and fails unless it succeeded.
func (e *env) runOK(ctx context.Context, code, lang string) error {
	text, failed, err := e.prox.RunScript(ctx, code, lang)
	if err == nil && failed {
		err = fmt.Errorf("script failed: %s", text)
	}
	return err
}

// upstreamPool connects toolfold's upstream pool to everything alone: the
// path every proxied call takes after the client-facing server.
func (e *env) upstreamPool(ctx context.Context) (*upool.Pool, error) {
	cfg, err := config.Load(e.cfg, nil)
	if err != nil {
		return nil, err
	}
	var ups []config.Upstream
	for _, u := range cfg.Upstreams {
		if u.Name == "everything" {
			ups = append(ups, u)
		}
	}
	pool := upool.New(ups, &upool.Options{Logger: e.log, Version: "bench"})
	pool.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	pool.WaitReady(wctx)
	if st := pool.Status(); len(st) != 1 || st[0].State != upool.StateReady {
		pool.Close()
		return nil, fmt.Errorf("upstream.Pool did not connect to everything: %+v", st)
	}
	return pool, nil
}

// binary is a client of the toolfold binary serving stdio.
type binary struct {
	*client
	cmd *exec.Cmd
}

// serveBinary starts `toolfold serve -c cfg` (stdio) and connects to it.
func (e *env) serveBinary(ctx context.Context, cfg string) (*binary, error) {
	cmd := exec.Command(e.opts.Toolfold, "serve", "-c", cfg, "--log-level", "error")
	stderr := &tail{max: 4096}
	cmd.Stderr = stderr
	cctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolfold-bench", Version: "1"}, nil).
		Connect(cctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("start %s serve: %w; its stderr: %s", e.opts.Toolfold, err, stderr)
	}
	return &binary{client: &client{name: "toolfold binary", cs: cs}, cmd: cmd}, nil
}

// tail keeps the last max bytes written, for error messages.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// searchCaseName names the binary's search case with the sample's tool
// count when the schemas section ran (bench --only latency skips it).
func searchCaseName(rep *Report) string {
	if len(rep.Schemas) == 0 {
		return "search_tools (toolfold binary, stdio)"
	}
	return fmt.Sprintf("search_tools, %d tools (toolfold binary, stdio)", rep.Schemas[0].Tools)
}
