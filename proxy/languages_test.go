package proxy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
)

// namedRunner is a runner that only has a name.
type namedRunner string

func (n namedRunner) Language() string { return string(n) }

func (namedRunner) Run(context.Context, sandbox.Request, sandbox.Host) (*sandbox.Result, error) {
	return &sandbox.Result{}, nil
}

// TestRunScriptListsServedLanguages: the schema's enum and the description
// name exactly the languages with a runner.
func TestRunScriptListsServedLanguages(t *testing.T) {
	lua := sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0]})
	for _, tt := range []struct {
		runners []sandbox.Runner
		want    []string
		absent  []string
	}{
		{[]sandbox.Runner{lua}, []string{"lua"}, []string{"python", "javascript"}},
		{[]sandbox.Runner{lua, namedRunner("python")}, []string{"lua", "python"}, []string{"javascript"}},
		{[]sandbox.Runner{lua, namedRunner("python"), namedRunner("javascript")}, []string{"lua", "python", "javascript"}, nil},
	} {
		p := New(testConfig(), &Options{Runners: tt.runners})
		run := p.AdvertisedTools()[1]
		var schema struct {
			Properties struct {
				Language struct {
					Enum []string `json:"enum"`
				} `json:"language"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(run.InputSchema.(json.RawMessage), &schema); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(schema.Properties.Language.Enum, ","); got != strings.Join(tt.want, ",") {
			t.Errorf("language enum = %s, want %v", got, tt.want)
		}
		for _, lang := range tt.absent {
			if strings.Contains(run.Description, `language "`+lang+`"`) {
				t.Errorf("description mentions %s, which is not served:\n%s", lang, run.Description)
			}
		}
		for _, lang := range tt.want[1:] {
			if !strings.Contains(run.Description, `language "`+lang+`"`) {
				t.Errorf("description does not show %s:\n%s", lang, run.Description)
			}
		}
		p.Close()
	}
}

// tclSyntax spells calls as a made-up Tcl prelude would accept them.
type tclSyntax struct{}

func (tclSyntax) ToolExpr(server, tool string) string { return "tools " + server + " " + tool }
func (tclSyntax) Comment() string                     { return ";#" }
func (tclSyntax) Ident(name string) bool              { return sandbox.ScriptIdent(name) == name }
func (tclSyntax) Signature(expr string, ps []sandbox.SigParam, more int) string {
	var b strings.Builder
	b.WriteString("[" + expr)
	for _, p := range ps {
		b.WriteString(" -" + p.Name + " " + p.Type)
	}
	return b.String() + "]"
}
func (tclSyntax) Example(expr string, args []sandbox.ExampleArg) string {
	var b strings.Builder
	b.WriteString("set r [" + expr)
	for _, a := range args {
		v, _ := json.Marshal(a.Value)
		b.WriteString(" -" + a.Name + " " + string(v))
	}
	return b.String() + "]"
}

// TestAFourthLanguageIsOneDescriptor: a language is one sandbox.Language
// plus its runner. Registering a made-up fourth one makes config accept
// its interpreter key, the runners include it, run_script offers and
// describes it, search_tools spells signatures in it, and its file
// extension names it.
func TestAFourthLanguageIsOneDescriptor(t *testing.T) {
	var gotPath string
	t.Cleanup(sandbox.RegisterLanguage(sandbox.Language{
		Name: "tcl", Title: "Tcl", Extensions: []string{".tcl"},
		Interpreter: "tclsh", ConfigKey: "tclsh",
		New: func(o *sandbox.RunnerOptions) (sandbox.Runner, error) {
			gotPath = o.Path
			return namedRunner("tcl"), nil
		},
		Syntax:  tclSyntax{},
		Help:    "set r [tools server tool -key value]; failures raise a Tcl error.",
		Trivial: "return 1",
	}))

	// config: the interpreter key is known, and reaches the runner.
	src := "upstreams: {a: {command: x}}\nsandbox: {python: off, node: off, tclsh: /opt/tcl/bin/tclsh}\n"
	cfg, err := config.Parse(filepath.Join(t.TempDir(), "proxy.yaml"), []byte(src), nil)
	if err != nil {
		t.Fatalf("config rejects the new language's key: %v", err)
	}
	if _, err := config.Parse("proxy.yaml", []byte("upstreams: {a: {command: x}}\nsandbox: {tcl_sh: x}\n"), nil); err == nil || !strings.Contains(err.Error(), `did you mean "tclsh"`) {
		t.Errorf("a misspelt interpreter key: %v, want a suggestion of tclsh", err)
	}
	runners, st := sandbox.NewRunners(cfg.Sandbox.Interpreter, sandbox.RunnerOptions{Exe: os.Args[0]})
	var served []string
	for _, r := range runners {
		served = append(served, r.Language())
	}
	if diff := cmp.Diff([]string{"lua", "tcl"}, served); diff != "" {
		t.Fatalf("runners (-want +got):\n%s\n%+v", diff, st)
	}
	if gotPath != "/opt/tcl/bin/tclsh" {
		t.Errorf("the runner got interpreter %q, want the configured one", gotPath)
	}

	// proxy: run_script's enum and description.
	p := New(cfg, &Options{Runners: runners, Providers: []Provider{newFakeProvider("notes")}})
	defer p.Close()
	run := p.AdvertisedTools()[1]
	if !strings.Contains(string(run.InputSchema.(json.RawMessage)), `"enum":["lua","tcl"]`) {
		t.Errorf("run_script's schema does not offer tcl: %s", run.InputSchema)
	}
	if want := ` language "tcl": set r [tools server tool -key value]; failures raise a Tcl error.`; !strings.Contains(run.Description, want) {
		t.Errorf("run_script's description lacks %q:\n%s", want, run.Description)
	}

	// index: signatures and examples in the language's syntax.
	text, err := p.SearchLanguage("saved note by title", "summary", 1, "", "tcl")
	if err != nil {
		t.Fatal(err)
	}
	if want := "[tools notes lookup_note -title string] ;# Look up a saved note by its title."; !strings.Contains(text, want) {
		t.Errorf("search_tools in tcl:\n%s\nwant %s", text, want)
	}
	text, _ = p.SearchLanguage("saved note by title", "full", 1, "", "tcl")
	if want := `Example: set r [tools notes lookup_note -title "`; !strings.Contains(text, want) {
		t.Errorf("search_tools full in tcl:\n%s\nwant %s", text, want)
	}

	// cmd: toolfold run picks the language by extension.
	if l, ok := sandbox.LanguageOfFile("/tmp/count.TCL"); !ok || l.Name != "tcl" {
		t.Errorf("LanguageOfFile(count.TCL) = %q, %v", l.Name, ok)
	}
}
