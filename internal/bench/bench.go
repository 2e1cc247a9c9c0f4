// Package bench measures what toolfold is for, against real servers: the
// context tokens of tool schemas and of whole tasks, direct vs through
// toolfold, and what the proxy costs in latency and memory. The lab's
// `toolfold-lab bench` (cmd/toolfold-lab) runs it and prints the Report;
// tokens are counted with internal/tokens (o200k_base).
//
// Every figure comes from a run: the npm reference servers (everything,
// filesystem, memory) started with node, toolfold in-process (proxy.New)
// and as its binary over stdio, and the 124-server search corpus served by
// the replay fixture (internal/replay). Scenario scripts really run through
// run_script, and their answers are checked against what the bench
// computed itself; a wrong answer is an error, not a figure.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/replay"
	"github.com/toolfold/toolfold/internal/tokens"
	"github.com/toolfold/toolfold/proxy"
	"github.com/toolfold/toolfold/sandbox"
)

// Options configure a run.
type Options struct {
	NPM    string // node_modules holding the reference servers (FindNPM)
	Corpus string // search corpus directory (tools/<server>.json)
	// Toolfold is the toolfold binary measured over stdio (`serve`);
	// BuildToolfold builds one from a clone.
	Toolfold string
	// Lab is the binary whose replay-server command serves corpus slices
	// as upstreams (default: this process's own, toolfold-lab).
	Lab    string
	LabEnv []string // extra environment for Lab's processes (tests make their binary act as the lab)
	Quick  bool     // small sizes and few samples: a smoke run for CI, not figures
	// Only, when set, names the sections to run (Sections); the others are
	// left out of the report.
	Only []string
	Log  *slog.Logger
	// Progress, when set, receives one line per step.
	Progress io.Writer
}

// Sections are the names Options.Only takes, in the order they run.
var Sections = []string{"schemas", "corpus", "scenarios", "latency", "overhead", "memory"}

// Report is everything one run measured.
type Report struct {
	Encoding string
	Quick    bool
	Started  time.Time
	Elapsed  time.Duration

	Schemas []SchemaRow
	Advert  Advertised // the two tools with all corpus servers behind them
	// CorpusConnect is how long the in-process toolfold took to connect
	// every corpus upstream (HTTP, loopback) and list their tools.
	CorpusConnect time.Duration
	Scenarios     []Scenario
	Latency       []LatencyRow
	Overhead      []OverheadRow // overhead.go
	FirstRun      []FirstRunRow
	OneCall       *OneCallRow
	Memory        []MemoryRow
}

type env struct {
	opts   Options
	log    *slog.Logger
	work   string
	sample []upstream
	direct map[string]*client // sample servers, connected directly
	prox   *proxy.Proxy       // sample config, in-process
	pc     *client            // client of prox
	cfg    string             // sample config file
	// warmers are the runners of the in-process proxies, which keep warm
	// children as toolfold serve does; coldStart discards them.
	warmers []sandbox.Warmer
}

// Run measures everything and returns the report. ctx bounds the run.
func Run(ctx context.Context, opts Options) (*Report, error) {
	for _, o := range opts.Only {
		if !slices.Contains(Sections, o) {
			return nil, fmt.Errorf("no bench section %q: the sections are %s", o, strings.Join(Sections, ", "))
		}
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Toolfold == "" {
		return nil, errors.New("no toolfold binary to measure: pass Options.Toolfold (BuildToolfold builds one)")
	}
	if opts.Lab == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		opts.Lab = exe
	}
	corpus, err := filepath.Abs(opts.Corpus) // replay children run elsewhere
	if err != nil {
		return nil, err
	}
	opts.Corpus = corpus
	rep := &Report{Encoding: tokens.Encoding, Quick: opts.Quick, Started: time.Now().UTC()}
	work, err := os.MkdirTemp("", "toolfold-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	e := &env{opts: opts, log: opts.Log, work: work, direct: make(map[string]*client)}
	defer e.close()
	// The in-process rows depend on it: the lab's own binary is as large
	// as toolfold, toolfold-sandbox a third of it to start.
	e.progress("in-process toolfold: %s", sandbox.ExeNote())
	if err := e.startSample(ctx); err != nil {
		return nil, err
	}
	steps := []struct {
		key, name string
		f         func(context.Context, *Report) error
	}{
		{"schemas", "schema cost, sample config", e.sampleSchemas},
		{"corpus", "schema cost of the corpus; search latency", e.corpus},
		{"scenarios", "task scenarios", e.scenarios},
		{"latency", "latency", e.latency},
		{"overhead", "run overhead", e.overhead},
		{"memory", "proxy memory", e.memory},
	}
	only := withNeeds(opts.Only)
	for _, s := range steps {
		if len(only) > 0 && !slices.Contains(only, s.key) {
			continue
		}
		start := time.Now()
		if err := s.f(ctx, rep); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		e.progress("%s: done in %s", s.name, time.Since(start).Round(time.Millisecond))
	}
	rep.Elapsed = time.Since(rep.Started).Round(time.Millisecond)
	return rep, nil
}

// needs names the sections a section reads the figures of: the scenarios
// count the schemas both sides advertise.
var needs = map[string][]string{"scenarios": {"schemas"}}

// withNeeds is only with the sections its sections need added.
func withNeeds(only []string) []string {
	out := slices.Clone(only)
	for _, s := range only {
		for _, n := range needs[s] {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func (e *env) progress(format string, args ...any) {
	if e.opts.Progress != nil {
		fmt.Fprintf(e.opts.Progress, "bench: "+format+"\n", args...)
	}
}

// startSample starts the three reference servers twice: once for direct
// clients, once behind an in-process toolfold with the same command lines.
func (e *env) startSample(ctx context.Context) error {
	ups, err := sampleUpstreams(e.opts.NPM, e.work)
	if err != nil {
		return err
	}
	e.sample = ups
	for _, u := range ups {
		c, err := dial(ctx, u)
		if err != nil {
			return err
		}
		e.direct[u.Name] = c
	}
	e.cfg = filepath.Join(e.work, "sample.yaml")
	if err := writeConfig(e.cfg, ups); err != nil {
		return err
	}
	e.prox, e.pc, err = e.startProxy(ctx, e.cfg, len(ups))
	return err
}

// startProxy runs toolfold in-process on the config at path, waits for
// want upstreams, and connects a client to it in memory.
func (e *env) startProxy(ctx context.Context, path string, want int) (*proxy.Proxy, *client, error) {
	cfg, err := config.Load(path, nil)
	if err != nil {
		return nil, nil, err
	}
	p := proxy.New(cfg, &proxy.Options{Logger: e.log.With("component", "proxy"), Version: "bench", Runners: e.runners(cfg)})
	p.Start(ctx)
	wctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	p.WaitReady(wctx)
	cancel()
	ready := 0
	var down []string
	for _, s := range p.Status() {
		if s.State == proxy.StateReady {
			ready++
		} else {
			down = append(down, fmt.Sprintf("%s: %s %s", s.Name, s.State, s.Err))
		}
	}
	if ready != want {
		p.Close()
		return nil, nil, fmt.Errorf("toolfold connected %d of %d upstreams: %v", ready, want, down)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := p.Server().Connect(ctx, st, nil)
	if err != nil {
		p.Close()
		return nil, nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolfold-bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		p.Close()
		return nil, nil, err
	}
	return p, &client{name: "toolfold", cs: cs}, nil
}

func (e *env) close() {
	if e.pc != nil {
		e.pc.Close()
	}
	if e.prox != nil {
		e.prox.Close()
	}
	for _, c := range e.direct {
		c.Close()
	}
}

// serveReplay serves the corpus servers over HTTP on loopback, in-process:
// one listener, each server at /<name>/mcp.
func serveReplay(servers []replay.Server) (base string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: replay.Handler(servers), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String(), func() { srv.Close() }, nil
}

// errWrong marks a scenario whose answer was wrong.
var errWrong = errors.New("wrong answer")

// runners are the script languages measured: every sandbox.Language whose
// runner works on this host (as toolfold serve offers them: Lua, and
// Python and JavaScript where their interpreter works), each keeping warm
// children as toolfold serve does.
func (e *env) runners(cfg *config.Config) []sandbox.Runner {
	rs, st := sandbox.NewRunners(cfg.Sandbox.Interpreter, sandbox.RunnerOptions{Logger: e.log.With("component", "sandbox"), Warm: true})
	for _, s := range st {
		if s.Err != nil {
			e.progress("%s not measured: %v", s.Language.Name, s.Err)
		}
	}
	for _, r := range rs {
		if w, ok := r.(sandbox.Warmer); ok {
			e.warmers = append(e.warmers, w)
		}
	}
	return rs
}

// coldStart discards the warm children kept for runs without a session
// (RunScript's), so that the next run starts its own, as a session's
// first run does.
func (e *env) coldStart() {
	for _, w := range e.warmers {
		w.Forget("")
	}
}

// thinkTime is the pause before each warm run_script sample: a model
// reads one answer before it writes the next script, and a warm runner
// starts the next run's child meanwhile.
const thinkTime = 100 * time.Millisecond

func think() { time.Sleep(thinkTime) }
