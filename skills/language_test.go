package skills

import (
	"strings"
	"testing"

	"github.com/toolfold/toolfold/sandbox"
)

// TestLanguagesAreSandboxs: the languages a skill may be written in, their
// code files and the names they reserve come from sandbox.Language, not
// from a list of the skills package's own: a language registered there is
// one a skill may use.
func TestLanguagesAreSandboxs(t *testing.T) {
	for _, l := range sandbox.Languages() {
		if got, want := CodeFile(l.Name), "main"+l.Extensions[0]; got != want {
			t.Errorf("CodeFile(%q) = %q, want %q", l.Name, got, want)
		}
	}
	if CodeFile("py") != "" || CodeFile("Python") != "" {
		t.Error("CodeFile takes an alias; a skill names its language by its Name")
	}
	tcl, _ := sandbox.LookupLanguage("lua")
	tcl.Name, tcl.Title, tcl.Extensions, tcl.Aliases = "tcl", "Tcl", []string{".tcl"}, nil
	t.Cleanup(sandbox.RegisterLanguage(tcl))
	if got := CodeFile("tcl"); got != "main.tcl" {
		t.Errorf("CodeFile(tcl) = %q after registering tcl, want main.tcl", got)
	}
	s := area()
	s.Language, s.Code = "tcl", "return 1"
	if err := s.Validate(); err != nil {
		t.Errorf("a skill in a registered language: %v", err)
	}
}

// TestNameReservedInAnyLanguage: a name reserved in any script language is
// refused, saying which (elif is Python's, static JavaScript's).
func TestNameReservedInAnyLanguage(t *testing.T) {
	for name, lang := range map[string]string{"elif": "Python", "static": "JavaScript", "local": "Lua", "await": ""} {
		msg := NameProblem(name)
		if !strings.Contains(msg, "keyword in "+lang) {
			t.Errorf("NameProblem(%q) = %q, want a keyword in %s", name, msg, lang)
		}
	}
	if msg := NameProblem("circle_area"); msg != "" {
		t.Errorf("NameProblem(circle_area) = %q", msg)
	}
}
