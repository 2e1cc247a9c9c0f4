package sandbox

import (
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Language is everything toolfold knows of one run_script language, in
// one place: config reads its interpreter key, cmd builds its runner and
// reports it in check, index spells signatures with its Syntax, proxy
// describes it in run_script's description, bench measures it. Adding a
// language is one Language (RegisterLanguage) plus its Runner.
type Language struct {
	// Name is run_script's language argument: "python".
	Name string
	// Title is the name in prose: "Python".
	Title string
	// Aliases are other names accepted where a person names the language
	// (toolfold search --language py): "py", "python3".
	Aliases []string
	// Extensions are the script file extensions, first the usual one;
	// toolfold run picks the language of a file by them: ".py".
	Extensions []string

	// Interpreter is the command looked up on PATH when the config names
	// none ("python3"); "" for a language built into toolfold (Lua), which
	// is always served.
	Interpreter string
	// ConfigKey is the key under proxy.yaml's sandbox: that names the
	// interpreter (a path, a command on PATH) or switches the language off
	// with "off": "python", "node". "" when it has none.
	ConfigKey string
	// New builds the runner. For an interpreter language it finds and
	// checks the interpreter and says, as an error, why the language is
	// unavailable and how to fix that.
	New func(*RunnerOptions) (Runner, error)
	// Prelude is the code a child runs before the script: the bridge
	// client, tools/call/search_tools, the script runner ("" for Lua,
	// whose bridge functions are Go).
	Prelude string

	// Syntax spells tool calls as the prelude accepts them, for
	// search_tools' signatures and examples.
	Syntax Syntax
	// Help is what run_script's description says of the language: how a
	// script calls a tool, what a failure does, how calls run concurrently.
	// The default language's follows "Call: "; another's follows
	// ` language "NAME": `.
	Help string
	// Trivial is a script that returns a value without calling a tool: the
	// run overhead toolfold-lab bench measures.
	Trivial string
}

// RunnerOptions configure a Language's New. The zero value is ready to
// use: the interpreter on PATH, this binary re-executed, no logging, cold.
type RunnerOptions struct {
	// Path is the interpreter (the config's value): an absolute or
	// relative path, or a bare name looked up on PATH. Empty means the
	// Language's Interpreter. Unused by built-in languages.
	Path string
	// Exe is the binary re-executed as a built-in language's child (see
	// LuaOptions.Exe).
	Exe string
	// Logger receives debug lines per run and warnings; nil discards them.
	Logger *slog.Logger
	// Warm keeps, after each run, a child started for the next run of the
	// same Workdir and Limits (see Warmer).
	Warm bool
}

// InterpreterOff, as a language's ConfigKey value, switches it off.
const InterpreterOff = "off"

var (
	langMu    sync.RWMutex
	languages = []Language{luaLanguage, pythonLanguage, javascriptLanguage}
)

var luaLanguage = Language{
	Name: "lua", Title: "Lua", Extensions: []string{".lua"},
	New: func(o *RunnerOptions) (Runner, error) {
		return NewLua(&LuaOptions{Exe: o.Exe, Logger: o.Logger, Warm: o.Warm}), nil
	},
	Syntax: luaSyntax{},
	Help: `local r = tools.server.tool{arg = "v"} or call("server.tool", {...}); r is the structured result, parsed JSON, or text. ` +
		"A failed call raises an error (catch with pcall). Also search_tools(query), json.encode/decode, " +
		"and skills.save{name = ..., description = ..., code = ..., parameters = <JSON Schema>} to keep a script for later sessions (it gets args).",
	Trivial: "return 1",
}

var pythonLanguage = Language{
	Name: "python", Title: "Python", Aliases: []string{"py", "python3"}, Extensions: []string{".py"},
	Interpreter: "python3", ConfigKey: "python",
	New: func(o *RunnerOptions) (Runner, error) {
		return NewPython(&InterpreterOptions{Path: o.Path, Logger: o.Logger, Warm: o.Warm})
	},
	Prelude: pythonPrelude,
	Syntax:  pySyntax{},
	Help: `r = tools.server.tool(key=value) or call("server.tool", {...}); ` +
		"failures raise ToolError; top-level return and await work; concurrent: asyncio.gather(tools.server.tool.acall(...), ...); " +
		"skills.save(name=..., description=..., code=..., parameters=...) keeps a script for later sessions as tools.skills.NAME.",
	Trivial: "1",
}

var javascriptLanguage = Language{
	Name: "javascript", Title: "JavaScript", Aliases: []string{"js", "node", "nodejs"}, Extensions: []string{".js", ".mjs"},
	Interpreter: "node", ConfigKey: "node",
	New: func(o *RunnerOptions) (Runner, error) {
		return NewJavaScript(&InterpreterOptions{Path: o.Path, Logger: o.Logger, Warm: o.Warm})
	},
	Prelude: nodePrelude,
	Syntax:  jsSyntax{},
	Help: `const r = await tools.server.tool({key: value}) or await call("server.tool", {...}); ` +
		"failures throw ToolError; top-level return and await work; Promise.all runs calls concurrently; " +
		"await skills.save({name, description, code, parameters}) keeps a script for later sessions as tools.skills.NAME.",
	Trivial: "1",
}

// Languages lists the run_script languages, Lua first: the order in which
// they are built, reported and offered.
func Languages() []Language {
	langMu.RLock()
	defer langMu.RUnlock()
	return slices.Clone(languages)
}

// LanguageNames lists the languages' names, sorted.
func LanguageNames() []string {
	var names []string
	for _, l := range Languages() {
		names = append(names, l.Name)
	}
	slices.Sort(names)
	return names
}

// LanguageList is the languages' names in prose, in Languages' order:
// "lua, python or javascript".
func LanguageList() string {
	var names []string
	for _, l := range Languages() {
		names = append(names, l.Name)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// LookupLanguage finds a language by its name or an alias, in any case.
func LookupLanguage(name string) (Language, bool) {
	name = strings.ToLower(name)
	for _, l := range Languages() {
		if l.Name == name || slices.Contains(l.Aliases, name) {
			return l, true
		}
	}
	return Language{}, false
}

// LanguageOfFile is the language whose extension path has; ok is false
// when none has it.
func LanguageOfFile(path string) (Language, bool) {
	lower := strings.ToLower(path)
	for _, l := range Languages() {
		for _, ext := range l.Extensions {
			if strings.HasSuffix(lower, ext) {
				return l, true
			}
		}
	}
	return Language{}, false
}

// builtIn reports a language that runs in toolfold's own runtime (Lua),
// not an interpreter: RequireDegraded allows it without namespaces.
func builtIn(name string) bool {
	l, ok := LookupLanguage(name)
	return ok && l.Interpreter == ""
}

// RegisterLanguage adds a language after the others, or replaces the one
// of the same name; call it before toolfold reads its config. It returns a
// function that restores the languages as they were (for tests).
func RegisterLanguage(l Language) (restore func()) {
	if l.Name == "" || l.Syntax == nil || l.New == nil {
		panic(fmt.Sprintf("sandbox: RegisterLanguage(%q): a language needs a Name, a Syntax and New", l.Name))
	}
	langMu.Lock()
	defer langMu.Unlock()
	old := slices.Clone(languages)
	if i := slices.IndexFunc(languages, func(x Language) bool { return x.Name == l.Name }); i >= 0 {
		languages[i] = l
	} else {
		languages = append(languages, l)
	}
	return func() {
		langMu.Lock()
		languages = old
		langMu.Unlock()
	}
}

// LanguageStatus says whether a language is served, and why not.
type LanguageStatus struct {
	Language   Language
	Runner     Runner // nil when unavailable
	Detail     string // "3.11.7 at /usr/bin/python3", "built in"
	Err        error  // why it is unavailable; nil when served
	Configured bool   // the config names the interpreter: unavailable is a failure
}

// NewRunners builds a runner for every language, in Languages' order:
// built-in ones always, an interpreter language unless interpreter(its
// Name) is InterpreterOff or its interpreter does not work. interpreter
// gives the configured interpreter ("" looks up the default); nil means
// none is configured.
func NewRunners(interpreter func(lang string) string, opts RunnerOptions) ([]Runner, []LanguageStatus) {
	var runners []Runner
	var st []LanguageStatus
	for _, l := range Languages() {
		o := opts
		if interpreter != nil && l.Interpreter != "" {
			o.Path = interpreter(l.Name)
		}
		s := LanguageStatus{Language: l, Configured: o.Path != ""}
		switch {
		case o.Path == InterpreterOff:
			s.Err, s.Configured = fmt.Errorf("disabled (sandbox.%s: off)", l.ConfigKey), false
		default:
			r, err := l.New(&o)
			if err != nil {
				s.Err = err
				break
			}
			s.Runner, s.Detail = r, "built in"
			if in, ok := r.(interface{ Version() string }); ok && l.Interpreter != "" {
				s.Detail = in.Version()
				if p, ok := r.(interface{ Path() string }); ok {
					s.Detail += " at " + p.Path()
				}
			}
			runners = append(runners, r)
		}
		st = append(st, s)
	}
	return runners, st
}
