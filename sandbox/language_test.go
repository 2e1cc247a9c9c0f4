package sandbox

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookupLanguage(t *testing.T) {
	for in, want := range map[string]string{"lua": "lua", "PY": "python", "python3": "python", "js": "javascript",
		"nodejs": "javascript", "cobol": ""} {
		l, ok := LookupLanguage(in)
		if l.Name != want || ok != (want != "") {
			t.Errorf("LookupLanguage(%q) = %q, %v; want %q", in, l.Name, ok, want)
		}
	}
	for in, want := range map[string]string{"a/b.py": "python", "x.MJS": "javascript", "x.js": "javascript", "x.lua": "lua", "x.txt": ""} {
		if l, _ := LanguageOfFile(in); l.Name != want {
			t.Errorf("LanguageOfFile(%q) = %q, want %q", in, l.Name, want)
		}
	}
}

func TestRegisterLanguage(t *testing.T) {
	before := LanguageNames()
	restore := RegisterLanguage(Language{Name: "tcl", Syntax: luaSyntax{},
		New: func(*RunnerOptions) (Runner, error) { return nil, nil }})
	if diff := cmp.Diff(append(before, "tcl"), LanguageNames()); diff != "" {
		t.Errorf("after registering (-want +got):\n%s", diff)
	}
	if builtIn("tcl") != true || builtIn("python") {
		t.Error("a language without an interpreter is built in, one with is not")
	}
	restore()
	if diff := cmp.Diff(before, LanguageNames()); diff != "" {
		t.Errorf("after restoring (-want +got):\n%s", diff)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "needs a Name, a Syntax and New") {
			t.Errorf("registering an incomplete language: %v", r)
		}
	}()
	RegisterLanguage(Language{Name: "half"})
}

func TestNewRunnersOff(t *testing.T) {
	off := map[string]string{"python": InterpreterOff, "javascript": "/nonexistent/node"}
	runners, st := NewRunners(func(l string) string { return off[l] }, RunnerOptions{})
	if len(runners) != 1 || runners[0].Language() != "lua" {
		t.Errorf("runners = %v, want Lua alone", runners)
	}
	var got []string
	for _, s := range st {
		line := s.Language.Name + ": " + s.Detail
		if s.Err != nil {
			line += s.Err.Error()
		}
		got = append(got, line)
	}
	want := []string{"lua: built in", "python: disabled (sandbox.python: off)",
		"javascript: javascript: /nonexistent/node: no such file or directory; install Node.js 18 or later or set sandbox.node to its path"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if !st[2].Configured || st[1].Configured {
		t.Errorf("configured: python %v (off is a choice, not a failure), javascript %v (a missing configured interpreter is)", st[1].Configured, st[2].Configured)
	}
}
