// Command toolfold-lab is toolfold's lab: the measurements behind the
// README's figures, kept out of the product binary. Run it from a toolfold
// clone (its defaults name the clone's test data):
//
//	go run ./cmd/toolfold-lab bench [--quick] [--toolfold BIN] [--npm DIR] [--svg FILE] [--only SECTIONS]
//	go run ./cmd/toolfold-lab eval-search [--corpus DIR] [--set NAME|all] [--lines]
//	go run ./cmd/toolfold-lab eval-pii [--data FILE.jsonl | --set NAME|all] [--misses]
//	go run ./cmd/toolfold-lab replay-server --corpus DIR [--servers a,b | --slice K/N] [--http ADDR]
//
// bench runs the toolfold binary it measures (built from the clone unless
// --toolfold names one) and starts replay-server from this binary as the
// corpus upstreams. docs/lab.md describes every command and flag.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/toolfold/toolfold/sandbox"
)

// Exit codes, as toolfold's.
const (
	exitOK     = 0
	exitFailed = 1 // a run failed
	exitUsage  = 2 // bad flags or input
)

func main() {
	// bench's in-process proxies re-execute this binary for Lua runs when
	// no toolfold-sandbox sits beside it.
	if sandbox.IsChild() {
		sandbox.ChildMain() // never returns
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `toolfold-lab: the measurements behind toolfold's figures (not part of the toolfold binary).
Run from a toolfold clone: go run ./cmd/toolfold-lab COMMAND ...

Usage:
  toolfold-lab bench [--quick] [--toolfold BIN] [--npm DIR] [--install-npm] [--corpus DIR] [--svg FILE] [--only SECTIONS] [--timeout 20m]
                         measure tokens, latency and memory against real servers
  toolfold-lab eval-search [--corpus DIR] [--queries FILE.jsonl] [--split] [--set NAME|all] [--lines]
                         score search_tools' ranking on a labelled corpus
  toolfold-lab eval-pii [--data FILE.jsonl] [--set NAME|all] [--dir DIR] [--phone-regions US,DE] [--misses]
                         score the PII detectors on labelled text
  toolfold-lab replay-server [--corpus DIR] [--servers a,b | --slice K/N] [--http ADDR]
                         serve recorded tool schemas of the search corpus as MCP upstreams

Every command takes --log-level debug|info|warn|error. docs/lab.md has the details.
`

// run runs one command and returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "bench":
		return cmdBench(ctx, rest, stdout, stderr)
	case "eval-search":
		return cmdEvalSearch(rest, stdin, stdout, stderr)
	case "eval-pii":
		return cmdEvalPII(rest, stdout, stderr)
	case "replay-server":
		return cmdReplayServer(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "toolfold-lab: unknown command %q\n\n%s", cmd, usage)
	return exitUsage
}

// common holds the flag every command takes.
type common struct {
	logLevel string
}

// newFlags makes a command's flag set with the common flags.
func newFlags(name string, stderr io.Writer, defLevel string) (*flag.FlagSet, *common) {
	fs := flag.NewFlagSet("toolfold-lab "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	c := &common{}
	fs.StringVar(&c.logLevel, "log-level", defLevel, "debug, info, warn or error")
	return fs, c
}

// fail prints a usage problem and returns exitUsage.
func fail(stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "toolfold-lab: "+strings.TrimSuffix(format, "\n")+"\n", args...)
	return exitUsage
}
