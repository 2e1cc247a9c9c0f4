package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/toolfold/toolfold/sandbox"
)

// Run overhead (issue 19): what a trivial run_script costs over a
// search_tools call, which is one MCP round trip through the same binary,
// measured from outside as a client sees it: the toolfold binary over
// stdio in front of the npm memory server, one session, each call
// thinkTime after the previous one (a model reads each answer), the calls
// of a round in a shuffled order so that they see the same load.

// Run overhead goals, p50 of the per-round differences.
var OverheadGoals = map[string]time.Duration{
	"lua":        1 * time.Millisecond,
	"python":     1500 * time.Microsecond,
	"javascript": 3 * time.Millisecond,
}

// OverheadRow is one language's trivial run against search_tools.
type OverheadRow struct {
	Language string
	Samples  int
	Search   time.Duration // p50 of the search_tools calls
	Run      time.Duration // p50 of the runs
	Added    time.Duration // median over the rounds of run minus search
	Note     string        // set when the language was not measured
}

// OneCallRow is one tool call (memory's search_nodes) made by a warm Lua
// script through the toolfold binary against the same call made directly.
type OneCallRow struct {
	Samples        int
	Direct, Script time.Duration // p50s
	Added          time.Duration // median over the rounds of script minus direct
}

// OneCallGoal bounds OneCallRow.Added.
const OneCallGoal = 2 * time.Millisecond

// FirstRunRow is a fresh session's first run against starting the bare
// interpreter (the same command the sandbox starts, without the script)
// plus a search_tools call, alternated session by session.
type FirstRunRow struct {
	Language string
	Samples  int
	First    time.Duration // p50 of the first runs
	Bare     time.Duration // p50 of the bare interpreter starts
	Search   time.Duration // p50 of the session's search_tools call before its first run
	Note     string
}

// sessionSettle is the pause after a session starts, before its first
// search_tools, and after it ends, before the bare interpreter is timed.
const sessionSettle = time.Second

// memoryOnly writes a config with the npm memory server alone and returns
// its path.
func (e *env) memoryOnly() (string, error) {
	var ups []upstream
	for _, u := range e.sample {
		if u.Name == "memory" {
			ups = append(ups, u)
		}
	}
	path := filepath.Join(e.work, "memory-only.yaml")
	return path, writeConfig(path, ups)
}

// overhead measures the OverheadRows and FirstRunRows.
func (e *env) overhead(ctx context.Context, rep *Report) error {
	rounds, sessions := 40, 10
	if e.opts.Quick {
		rounds, sessions = 3, 1
	}
	cfg, err := e.memoryOnly()
	if err != nil {
		return err
	}
	bin, err := e.serveBinary(ctx, cfg)
	if err != nil {
		return err
	}
	defer bin.Close()
	searchOn := func(ctx context.Context, c *binary) error {
		_, err := c.call(ctx, "search_tools", map[string]any{"query": "read the knowledge graph"})
		return err
	}
	search := func(ctx context.Context) error { return searchOn(ctx, bin) }
	cases := []latencyCase{{name: "search_tools", n: rounds, call: search, before: think}}
	var langs []string
	for _, lang := range e.prox.Languages() {
		l, _ := sandbox.LookupLanguage(lang)
		if l.Trivial == "" {
			rep.Overhead = append(rep.Overhead, OverheadRow{Language: lang, Note: "no trivial script known (sandbox.Language.Trivial)"})
			continue
		}
		langs = append(langs, lang)
		cases = append(cases, latencyCase{name: lang, n: rounds, before: think, call: func(ctx context.Context) error {
			_, err := bin.call(ctx, "run_script", map[string]any{"code": l.Trivial, "language": lang})
			return err
		}})
	}
	rows, err := measureInterleaved(ctx, cases)
	if err != nil {
		return err
	}
	for i, lang := range langs {
		r := rows[i+1]
		rep.Overhead = append(rep.Overhead, OverheadRow{Language: lang, Samples: rounds, Search: rows[0].P50, Run: r.P50, Added: r.Added})
	}
	// One tool call (a small answer) through a warm Lua script against the same call made
	// directly by a client of the memory server.
	direct := e.direct["memory"]
	if direct != nil {
		calls := []latencyCase{
			{name: "direct", n: rounds, before: think, call: func(ctx context.Context) error {
				_, err := direct.call(ctx, "search_nodes", map[string]any{"query": "no-such-entity-xyz"})
				return err
			}},
			{name: "script", n: rounds, before: think, call: func(ctx context.Context) error {
				_, err := bin.call(ctx, "run_script", map[string]any{"code": `return tools.memory.search_nodes{query = "no-such-entity-xyz"}`, "language": "lua"})
				return err
			}},
		}
		rows, err := measureInterleaved(ctx, calls)
		if err != nil {
			return err
		}
		rep.OneCall = &OneCallRow{Samples: rounds, Direct: rows[0].P50, Script: rows[1].P50, Added: rows[1].Added}
	}
	bin.Close()

	row := FirstRunRow{Language: "python", Samples: sessions}
	// The interpreter the sandbox starts: launchers such as pyenv's shims
	// resolved, as the runner resolved them.
	python := ""
	for _, w := range e.warmers {
		if r, ok := w.(interface{ Path() string }); ok && w.Language() == "python" {
			python = r.Path()
		}
	}
	if python == "" || !slices.Contains(e.prox.Languages(), "python") {
		row.Note = "python is not available here"
		rep.FirstRun = append(rep.FirstRun, row)
		return nil
	}
	var first, bare, searches []time.Duration
	for range sessions {
		b, err := e.serveBinary(ctx, cfg)
		if err != nil {
			return err
		}
		// A model reads the tool list before its first call; the upstream
		// and the session's first children start meanwhile.
		time.Sleep(sessionSettle)
		start := time.Now()
		err = searchOn(ctx, b)
		searches = append(searches, time.Since(start))
		if err == nil {
			think()
			start = time.Now()
			_, err = b.call(ctx, "run_script", map[string]any{"code": "1", "language": "python"})
			first = append(first, time.Since(start))
		}
		b.Close()
		if err != nil {
			return fmt.Errorf("a fresh session's first run: %w", err)
		}
		time.Sleep(sessionSettle) // the session's processes end before the bare start is timed
		start = time.Now()
		if err := exec.CommandContext(ctx, python, "-I", "-S", "-c", "1").Run(); err != nil {
			return fmt.Errorf("bare %s: %w", python, err)
		}
		bare = append(bare, time.Since(start))
	}
	row.First = latencyRow("", "", first).P50
	row.Bare = latencyRow("", "", bare).P50
	row.Search = latencyRow("", "", searches).P50
	rep.FirstRun = append(rep.FirstRun, row)
	return nil
}
