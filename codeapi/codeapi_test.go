package codeapi

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/index"
	"github.com/yuin/gopher-lua/parse"
)

// memoryTools is a server with a tool like server-memory's, one with odd
// parameter names and an output schema, and one without parameters.
func sampleIndex(t *testing.T) *index.Index {
	t.Helper()
	var entities map[string]any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object",
		"properties":{"name":{"type":"string","description":"The name"},"entityType":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}},
		"required":["name","entityType","observations"]}}},"required":["entities"]}`), &entities); err != nil {
		t.Fatal(err)
	}
	odd := map[string]any{"type": "object", "properties": map[string]any{
		"max-results": map[string]any{"type": "integer"},
		"from":        map[string]any{"type": "string", "enum": []any{"a", "b"}},
		"call":        map[string]any{"type": "boolean"},
		"q":           map[string]any{"type": "string"},
	}, "required": []any{"q"}}
	out := map[string]any{"type": "object", "properties": map[string]any{"hits": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}
	tools := []index.Tool{
		{Server: "memory", Name: "create_entities", Description: "Create multiple new entities in the knowledge graph.\nEach has \"\"\" quotes */ and \\ slashes.", InputSchema: entities},
		{Server: "memory", Name: "read_graph", Description: "Read the entire knowledge graph", InputSchema: map[string]any{"type": "object"}},
		{Server: "web-search", Name: "search-pages", Description: "Search the web.", InputSchema: odd, OutputSchema: out},
		{Server: "web-search", Name: "class", Description: "A keyword-named tool.", InputSchema: map[string]any{"type": "object"}},
		{Server: "web-search", Name: "class_", Description: "Its neighbour, named like the keyword's Python spelling.", InputSchema: map[string]any{"type": "object"}},
	}
	servers := []index.ServerInfo{
		{Name: "memory", Description: "knowledge graph", Available: true},
		{Name: "web-search", Available: true},
		{Name: "github", Available: false, Error: "connection refused: is the token set?"},
	}
	return index.New(tools, servers)
}

func sampleSkills() []Skill {
	return []Skill{{Name: "circle_area", Description: "Area of a circle", Language: "python",
		Code: "import math\nreturn math.pi * args['r'] ** 2", Parameters: json.RawMessage(`{"type":"object","properties":{"r":{"type":"number"}}}`)}}
}

func writeSample(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "tree")
	c := FromIndex(sampleIndex(t), "skills", nil)
	c.Skills = sampleSkills()
	if _, err := Write(dir, c, nil); err != nil {
		t.Fatal(err)
	}
	return dir
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteShape checks the tree's files and what each must say.
func TestWriteShape(t *testing.T) {
	dir := writeSample(t)
	want := map[string][]string{
		"servers/README.md": {"- memory/ (2 tools): knowledge graph", "- web_search/ (3 tools) web-search",
			"- github/ (0 tools, unavailable: connection refused: is the token set?)", "from servers.memory import create_entities"},
		"servers/memory/README.md":          {"# memory", "- create_entities(", "Create multiple new entities"},
		"servers/github/README.md":          {"Unavailable: connection refused: is the token set?"},
		"servers/memory/__init__.py":        {"from .create_entities import create_entities", "from .read_graph import read_graph"},
		"servers/memory/create_entities.py": {"class CreateEntitiesInput(TypedDict):", "def create_entities(*, entities: List[", `return _call("memory.create_entities", _args)`, `\"\"\" quotes`},
		"servers/memory/read_graph.py":      {"def read_graph() -> Any:", `return _call("memory.read_graph")`},
		"servers/web_search/search_pages.py": {`SearchPagesInput = TypedDict("SearchPagesInput", {`, "q: str", "max_results: Optional[int] = None",
			"from_: Optional[Union[Literal[\"a\"], Literal[\"b\"]]] = None", "call: Optional[bool] = None", `_args["max-results"] = max_results`, "-> Dict[str, Any]:"},
		"servers/web_search/class_.py":         {"def class_() -> Any:", `_call("web-search.class_")`},
		"servers/web_search/class_2.py":        {"def class_2() -> Any:", `_call("web-search.class")`},
		"servers/memory/create_entities.js":    {"@typedef {{entities: Array<", "function create_entities(args)", `call("memory.create_entities", args)`, `*\/ and`},
		"servers/memory/create_entities.d.ts":  {"export interface CreateEntitiesInput {entities: {", "export declare function create_entities(args?: CreateEntitiesInput): Promise<unknown>;"},
		"servers/memory/index.js":              {`create_entities: require("./create_entities.js").create_entities,`, `createEntities: require("./create_entities.js").create_entities,`},
		"servers/web_search/search_pages.d.ts": {`"max-results"?: number`, "Promise<{hits?: string[]}>"},
		"servers/memory/create_entities.lua":   {"---@class memory.CreateEntitiesInput", "---@field entities {", `return call("memory.create_entities", args or json.object())`},
		"servers/memory/init.lua":              {`M["create_entities"] = require("servers.memory.create_entities")`},
		"servers/package.json":                 {`"commonjs"`},
		"skills/README.md":                     {"- circle_area/ (python): Area of a circle"},
		"skills/__init__.py":                   {"save = _skills.save"},
		"skills/circle_area/SKILL.md":          {"name: circle_area", "parameters: {"},
		"skills/circle_area/main.py":           {"math.pi"},
		"skills/circle_area/__init__.py":       {"def circle_area(", `_call("skills.circle_area"`},
		"skills/circle_area/index.js":          {`call("skills.circle_area", args)`, "circleArea: circle_area"},
		"skills/circle_area/init.lua":          {`M["circle_area"] = function(args)`},
	}
	for path, subs := range want {
		text := read(t, filepath.Join(dir, path))
		for _, s := range subs {
			if !strings.Contains(text, s) {
				t.Errorf("%s lacks %q:\n%s", path, s, text)
			}
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "servers/memory/create_entities.py")); err != nil || fi.Mode().Perm() != 0o444 {
		t.Errorf("tool file mode: %v, %v; want read-only", fi.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "servers/github/__init__.py")); err == nil {
		t.Error("a server without tools has an __init__.py")
	}
}

// TestWriteTokenize: only the texts marked PII pass through Tokenize.
func TestWriteTokenize(t *testing.T) {
	ix := sampleIndex(t)
	c := FromIndex(ix, "skills", &Options{HoldsPII: func(s, tool string) bool { return tool == "read_graph" }})
	dir := filepath.Join(t.TempDir(), "tree")
	tok := func(s string) string { return strings.ReplaceAll(s, "knowledge graph", "[SECRET_1]") }
	if _, err := Write(dir, c, &WriteOptions{Tokenize: tok}); err != nil {
		t.Fatal(err)
	}
	if s := read(t, filepath.Join(dir, "servers/memory/read_graph.py")); !strings.Contains(s, "[SECRET_1]") {
		t.Errorf("the PII tool's file is not tokenized:\n%s", s)
	}
	if s := read(t, filepath.Join(dir, "servers/memory/create_entities.py")); strings.Contains(s, "[SECRET_1]") {
		t.Errorf("a tool without PII was tokenized")
	}
	if s := read(t, filepath.Join(dir, "servers/memory/README.md")); strings.Contains(s, "knowledge graph") {
		t.Errorf("the README of a server with a PII tool is not tokenized:\n%s", s)
	}
}

// TestWriteParses: every file parses in its language, for the sample and
// the 124-server corpus.
func TestWriteParses(t *testing.T) {
	dirs := []string{writeSample(t)}
	tools, servers, err := index.LoadCorpus("../index/testdata/search-corpus")
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(t.TempDir(), "corpus")
	if _, err := Write(corpus, FromIndex(index.New(tools, servers), "skills", nil), nil); err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, corpus)
	for _, dir := range dirs {
		var py, js []string
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			switch {
			case err != nil || d.IsDir():
			case strings.HasSuffix(p, ".py"):
				py = append(py, p)
			case strings.HasSuffix(p, ".js"):
				js = append(js, p)
			case strings.HasSuffix(p, ".lua"):
				if _, err := parse.Parse(strings.NewReader(read(t, p)), p); err != nil {
					t.Errorf("lua: %v", err)
				}
			}
			return nil
		})
		if len(py) == 0 || len(js) == 0 {
			t.Fatalf("%s: no .py or .js files", dir)
		}
		checkPython(t, py)
		checkJS(t, js)
	}
}

// TestPythonToolNamesDistinct: a tool named like a keyword and a tool
// named like the keyword's Python spelling ("class" and "class_") get a
// module each, and importing the server's package and calling each
// function calls its own tool, in a real python3.
func TestPythonToolNamesDistinct(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	dir := writeSample(t)
	stub := filepath.Join(t.TempDir(), "toolfold.py")
	if err := os.WriteFile(stub, []byte("def call(name, args=None):\n    return name\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	const prog = "from servers import web_search as w\nprint(w.class_(), w.class_2(), sorted(w.__all__))\n"
	cmd := exec.Command(py, "-c", prog)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+dir+string(os.PathListSeparator)+filepath.Dir(stub), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), "web-search.class_ web-search.class ['class_', 'class_2', 'search_pages']"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// checkPython parses files with python3's ast module.
func checkPython(t *testing.T, files []string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	const prog = "import ast, sys\nfor f in sys.stdin.read().split('\\n'):\n    ast.parse(open(f).read(), f)\n"
	cmd := exec.Command(py, "-c", prog)
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("python: %v\n%s", err, out)
	}
}

// checkJS checks files with node --check (a module's syntax, in one
// process: vm.Script compiles each as node would).
func checkJS(t *testing.T, files []string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	if out, err := exec.Command(node, "--check", files[0]).CombinedOutput(); err != nil {
		t.Errorf("node --check %s: %v\n%s", files[0], err, out)
	}
	const prog = `const fs = require('fs'), vm = require('vm');
for (const f of fs.readFileSync(0, 'utf8').split('\n')) new vm.Script('(function (exports, require, module) {' + fs.readFileSync(f, 'utf8') + '\n})', { filename: f });`
	cmd := exec.Command(node, "-e", prog)
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("node: %v\n%s", err, out)
	}
}

// TestWriteLinkFrom: a tokenized tree links the files Tokenize leaves
// alone to the plain tree's, and writes the others.
func TestWriteLinkFrom(t *testing.T) {
	ix := sampleIndex(t)
	c := FromIndex(ix, "skills", &Options{HoldsPII: func(s, tool string) bool { return tool == "read_graph" }})
	base := filepath.Join(t.TempDir(), "base")
	if _, err := Write(base, c, nil); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "session")
	tok := func(s string) string { return strings.ReplaceAll(s, "knowledge graph", "[SECRET_1]") }
	if _, err := Write(dir, c, &WriteOptions{Tokenize: tok, LinkFrom: base}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		path   string
		linked bool
	}{{"servers/memory/create_entities.py", true}, {"servers/memory/read_graph.py", false}, {"servers/README.md", false}} {
		a, _ := os.Stat(filepath.Join(base, f.path))
		b, err := os.Stat(filepath.Join(dir, f.path))
		if err != nil {
			t.Fatal(err)
		}
		if os.SameFile(a, b) != f.linked {
			t.Errorf("%s: linked=%v, want %v", f.path, os.SameFile(a, b), f.linked)
		}
	}
	if s := read(t, filepath.Join(dir, "servers/memory/read_graph.py")); !strings.Contains(s, "[SECRET_1]") {
		t.Errorf("the PII tool's file is not tokenized:\n%s", s)
	}
}
