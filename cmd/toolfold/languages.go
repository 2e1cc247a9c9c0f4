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
type langStatus struct {
	Lang       string
	Detail     string // "3.11.7 at /usr/bin/python3" when available
	Err        error  // why it is unavailable; nil when served
	Configured bool   // the config names the interpreter: unavailable is a failure
}

// languages builds the run_script runners: Lua (this binary) always,
// Python and JavaScript when their interpreter works. The statuses list
// every language in that order. warm makes them keep each session's next
// child started (serve; a one-shot command would only waste the start).
func languages(cfg *config.Config, log *slog.Logger, warm bool) ([]sandbox.Runner, []langStatus) {
	slog := log.With("component", "sandbox")
	runners := []sandbox.Runner{sandbox.NewLua(&sandbox.LuaOptions{Logger: slog, Warm: warm})}
	st := []langStatus{{Lang: "lua", Detail: "built in"}}
	type interp interface {
		sandbox.Runner
		Version() string
		Path() string
	}
	add := func(lang, path string, build func() (interp, error)) {
		s := langStatus{Lang: lang, Configured: path != ""}
		if path == config.LanguageOff {
			s.Err, s.Configured = fmt.Errorf("disabled (sandbox.%s: off)", configKey(lang)), false
		} else if r, err := build(); err != nil {
			s.Err = err
		} else {
			runners = append(runners, r)
			s.Detail = r.Version() + " at " + r.Path()
		}
		st = append(st, s)
	}
	opts := func(path string) *sandbox.InterpreterOptions {
		return &sandbox.InterpreterOptions{Path: path, Logger: slog, Warm: warm}
	}
	add("python", cfg.Sandbox.Python, func() (interp, error) { return sandbox.NewPython(opts(cfg.Sandbox.Python)) })
	add("javascript", cfg.Sandbox.Node, func() (interp, error) { return sandbox.NewJavaScript(opts(cfg.Sandbox.Node)) })
	return runners, st
}

func configKey(lang string) string {
	if lang == "javascript" {
		return "node"
	}
	return lang
}

// logLanguages reports the languages at startup: a warning for one the
// config names that does not work.
func logLanguages(log *slog.Logger, st []langStatus) {
	var served []string
	for _, s := range st {
		switch {
		case s.Err == nil:
			served = append(served, s.Lang)
		case s.Configured:
			log.Warn("run_script language unavailable", "language", s.Lang, "err", s.Err)
		default:
			log.Info("run_script language unavailable", "language", s.Lang, "reason", s.Err)
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
			fmt.Fprintf(w, "language %s: available (%s)\n", s.Lang, s.Detail)
		case s.Configured:
			fmt.Fprintf(w, "language %s: error: %s\n", s.Lang, strings.TrimPrefix(s.Err.Error(), s.Lang+": "))
			failed = true
		default:
			fmt.Fprintf(w, "language %s: unavailable: %s\n", s.Lang, strings.TrimPrefix(s.Err.Error(), s.Lang+": "))
		}
	}
	return failed
}
