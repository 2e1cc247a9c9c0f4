package main

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
)

// langStatus says whether a run_script language is served, and why not.
type langStatus = sandbox.LanguageStatus

// languages builds the run_script runners, one per sandbox.Language: Lua
// (this binary) always, Python and JavaScript when their interpreter
// works. The statuses list every language in that order. warm makes them
// keep each session's next child started (serve; a one-shot command would
// only waste the start).
func languages(cfg *config.Config, log *slog.Logger, warm bool) ([]sandbox.Runner, []langStatus) {
	return sandbox.NewRunners(cfg.Sandbox.Interpreter, sandbox.RunnerOptions{Logger: log.With("component", "sandbox"), Warm: warm})
}

// logLanguages reports the languages at startup: a warning for one the
// config names that does not work.
func logLanguages(log *slog.Logger, st []langStatus) {
	var served []string
	for _, s := range st {
		switch {
		case s.Err == nil:
			served = append(served, s.Language.Name)
		case s.Configured:
			log.Warn("run_script language unavailable", "language", s.Language.Name, "err", s.Err)
		default:
			log.Info("run_script language unavailable", "language", s.Language.Name, "reason", s.Err)
		}
	}
	log.Info("run_script languages: " + strings.Join(served, ", "))
}

// printLanguages prints one line per language for check; failed when a
// language the config names is unavailable.
func printLanguages(w io.Writer, st []langStatus) (failed bool) {
	for _, s := range st {
		switch {
		case s.Err == nil:
			fmt.Fprintf(w, "language %s: available (%s)\n", s.Language.Name, s.Detail)
		case s.Configured:
			fmt.Fprintf(w, "language %s: error: %s\n", s.Language.Name, strings.TrimPrefix(s.Err.Error(), s.Language.Name+": "))
			failed = true
		default:
			fmt.Fprintf(w, "language %s: unavailable: %s\n", s.Language.Name, strings.TrimPrefix(s.Err.Error(), s.Language.Name+": "))
		}
	}
	return failed
}
