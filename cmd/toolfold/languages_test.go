package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/config"
)

func TestLanguagesStatus(t *testing.T) {
	cfg := &config.Config{Sandbox: config.DefaultSandbox}
	cfg.Sandbox.Interpreters = map[string]string{"python": config.LanguageOff, "javascript": "/nonexistent/node"}
	runners, st := languages(cfg, slog.New(slog.DiscardHandler), false)
	if len(runners) != 1 || runners[0].Language() != "lua" {
		t.Errorf("runners = %v, want Lua alone", runners)
	}
	var out bytes.Buffer
	failed := printLanguages(&out, st)
	want := "language lua: available (built in)\n" +
		"language python: unavailable: disabled (sandbox.python: off)\n" +
		"language javascript: error: /nonexistent/node: no such file or directory; install Node.js 18 or later or set sandbox.node to its path\n"
	if out.String() != want {
		t.Errorf("check prints\n%s\nwant\n%s", out.String(), want)
	}
	if !failed {
		t.Error("a configured interpreter that is missing did not fail check")
	}
	var logs bytes.Buffer
	logLanguages(slog.New(slog.NewTextHandler(&logs, nil)), st)
	if !strings.Contains(logs.String(), "run_script languages: lua") || !strings.Contains(logs.String(), "level=WARN") {
		t.Errorf("startup log:\n%s", logs.String())
	}
}

func TestWarmStatus(t *testing.T) {
	on, off := config.DefaultSandbox, config.DefaultSandbox
	off.Warm = false
	if got := warmStatus(on); !strings.HasPrefix(got, "on: ") {
		t.Errorf("default: %q", got)
	}
	if got := warmStatus(off); !strings.HasPrefix(got, "off (sandbox.warm: false)") {
		t.Errorf("warm: false: %q", got)
	}
}
