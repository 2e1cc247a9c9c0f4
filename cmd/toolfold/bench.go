package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolfold/toolfold/internal/bench"
)

// benchExeEnv is extra environment for the processes bench starts from its
// own binary; tests set it so their test binary acts as toolfold.
var benchExeEnv []string

func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("bench", stderr, "error")
	quick := fs.Bool("quick", false, "small data and few samples: checks that everything works in seconds; not figures")
	npm := fs.String("npm", "", "directory whose node_modules holds @modelcontextprotocol/server-everything, -filesystem and -memory (default: the e2e tests' cache)")
	corpus := fs.String("corpus", "index/testdata/search-corpus", "search corpus directory (tools/<server>.json and queries-dev.jsonl)")
	svg := fs.String("svg", "", "also write the token chart as SVG to this file (e.g. docs/bench.svg)")
	install := fs.Bool("install-npm", false, "install the pinned npm servers (npm ci of e2e/testdata/package*.json into the e2e tests' cache) if they are missing")
	only := fs.String("only", "", "run only these sections, comma-separated: "+strings.Join(bench.Sections, ", "))
	timeout := fs.Duration("timeout", 20*time.Minute, "give up after this long")
	if _, err := parse(fs, args); err != nil {
		return exitUsage
	}
	log, err := c.logger(stderr)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	var nm string
	if *install && *npm == "" {
		fmt.Fprintln(stderr, "bench: installing the npm servers if missing (npm ci)...")
		nm, err = bench.InstallNPM(ctx, ".")
	} else {
		nm, err = bench.FindNPM(*npm, ".")
	}
	if err != nil {
		return fail(stderr, "%v", err)
	}
	abs, err := filepath.Abs(*corpus)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	if _, err := os.Stat(filepath.Join(abs, "queries-dev.jsonl")); err != nil {
		return fail(stderr, "--corpus %s: no queries-dev.jsonl there; run from a toolfold clone or pass the search corpus directory", *corpus)
	}
	var sections []string
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			sections = append(sections, strings.TrimSpace(s))
		}
	}
	rep, err := bench.Run(ctx, bench.Options{NPM: nm, Corpus: abs, Quick: *quick, Only: sections, Log: log, Progress: stderr, ExeEnv: benchExeEnv})
	if err != nil {
		fmt.Fprintf(stderr, "toolfold: bench: %v\n", err)
		return exitFailed
	}
	rep.Print(stdout)
	if *svg != "" {
		f, err := os.Create(*svg)
		if err != nil {
			return fail(stderr, "%v", err)
		}
		err = rep.SVG(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fmt.Fprintf(stderr, "toolfold: bench: writing %s: %v\n", *svg, err)
			return exitFailed
		}
		fmt.Fprintf(stderr, "bench: chart written to %s\n", *svg)
	}
	return exitOK
}
