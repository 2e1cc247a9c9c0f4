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
	"github.com/toolfold/toolfold/internal/cliflags"
)

// benchLabEnv is extra environment for the processes bench starts from its
// own binary (replay-server); tests set it so their test binary acts as
// the lab.
var benchLabEnv []string

// cmdBench runs `toolfold-lab bench`: every measurement of package bench,
// against the toolfold binary --toolfold names, else one built from the
// clone in the current directory.
func cmdBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs, c := newFlags("bench", stderr, "error")
	quick := fs.Bool("quick", false, "small data and few samples: checks that everything works in seconds; not figures")
	npm := fs.String("npm", "", "directory whose node_modules holds @modelcontextprotocol/server-everything, -filesystem and -memory (default: the e2e tests' cache)")
	corpus := fs.String("corpus", "index/testdata/search-corpus", "search corpus directory (tools/<server>.json and queries-dev.jsonl)")
	svg := fs.String("svg", "", "also write the token chart as SVG to this file (e.g. docs/bench.svg)")
	install := fs.Bool("install-npm", false, "install the pinned npm servers (npm ci of e2e/testdata/package*.json into the e2e tests' cache) if they are missing")
	toolfold := fs.String("toolfold", "", "the toolfold binary to measure, with toolfold-sandbox beside it (default: build ./cmd/toolfold of the clone in the current directory)")
	only := fs.String("only", "", "run only these sections, comma-separated: "+strings.Join(bench.Sections, ", "))
	timeout := fs.Duration("timeout", 20*time.Minute, "give up after this long")
	if _, err := cliflags.Parse(fs, args); err != nil {
		return exitUsage
	}
	log, err := cliflags.Logger(c.logLevel, stderr)
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
	bin, cleanup, err := toolfoldBinary(ctx, *toolfold, stderr)
	if err != nil {
		return fail(stderr, "%v", err)
	}
	defer cleanup()
	var sections []string
	if *only != "" {
		for _, s := range strings.Split(*only, ",") {
			sections = append(sections, strings.TrimSpace(s))
		}
	}
	rep, err := bench.Run(ctx, bench.Options{NPM: nm, Corpus: abs, Quick: *quick, Only: sections, Log: log, Progress: stderr, Toolfold: bin, LabEnv: benchLabEnv})
	if err != nil {
		fmt.Fprintf(stderr, "toolfold-lab: bench: %v\n", err)
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
			fmt.Fprintf(stderr, "toolfold-lab: bench: writing %s: %v\n", *svg, err)
			return exitFailed
		}
		fmt.Fprintf(stderr, "bench: chart written to %s\n", *svg)
	}
	return exitOK
}

// toolfoldBinary is the binary bench measures: path when given, else one
// built from the clone in the current directory into a temporary
// directory that cleanup removes.
func toolfoldBinary(ctx context.Context, path string, stderr io.Writer) (bin string, cleanup func(), err error) {
	if path != "" {
		if _, err := os.Stat(path); err != nil {
			return "", nil, fmt.Errorf("--toolfold %s: %w", path, err)
		}
		return path, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "toolfold-lab-bin-")
	if err != nil {
		return "", nil, err
	}
	fmt.Fprintln(stderr, "bench: building ./cmd/toolfold (pass --toolfold BIN to measure another build)...")
	bin, err = bench.BuildToolfold(ctx, ".", dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}
