package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// TestServersTree: through the built binary in front of the npm servers,
// every run sees the read-only servers/ and skills/ trees: a script lists
// and reads them and imports a tool in Python, JavaScript (import) and Lua
// (require) to create an entity; a skill one script saves, the next
// imports; writing into servers/ fails; and a tool an upstream adds
// (tools/list_changed) is in the tree of the next run.
func TestServersTree(t *testing.T) {
	t.Parallel()
	_, pyErr := exec.LookPath("python3")
	needLanguage(t, pyErr == nil, "python")
	_, nodeErr := exec.LookPath("node")
	needLanguage(t, nodeErr == nil, "javascript")
	ups, _ := npmTrio(t)
	dyn := mcp.NewServer(&mcp.Implementation{Name: "dyn", Version: "1"}, nil)
	mcp.AddTool(dyn, &mcp.Tool{Name: "greet", Description: "Greet someone."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return dyn }, nil))
	t.Cleanup(hs.Close)
	ups["dyn"] = upstream{URL: hs.URL}
	cs := startStdio(t, writeConfig(t, configYAML(ups)))

	run := func(lang, code string, want ...string) string {
		t.Helper()
		out := langOK(t, cs, lang, code)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s run: output lacks %q:\n%s", lang, w, out)
			}
		}
		return out
	}
	run("python", `import os
print(sorted(os.listdir("servers")))
print(open("servers/README.md").read())
src = open("servers/memory/create_entities.py").read()
print("typed:", "def create_entities(*, entities:" in src, "TypedDict" in src, '"""' in src)
from servers.memory import create_entities
r = create_entities(entities=[{"name": "py_tree", "entityType": "test", "observations": ["from python"]}])
print("created", r["entities"][0]["name"])
try:
    open("servers/memory/planted.py", "w").write("x")
    print("wrote into servers/")
except OSError as e:
    print("write refused:", e.strerror)
`, "'dyn', 'everything', 'filesystem', 'memory'", "- memory/ (9 tools)", "typed: True True True", "created py_tree", "write refused:")
	run("javascript", `import { create_entities, readGraph } from "./servers/memory/index.js";
const fs = require("fs");
const src = fs.readFileSync("servers/memory/create_entities.js", "utf8");
console.log("jsdoc:", src.includes("@param {CreateEntitiesInput}"), fs.existsSync("servers/memory/create_entities.d.ts"));
await create_entities({entities: [{name: "js_tree", entityType: "test", observations: []}]});
console.log("names:", (await readGraph()).entities.map((e) => e.name).sort().join(","));
try { fs.writeFileSync("servers/x.js", "1"); console.log("wrote into servers/"); } catch (e) { console.log("write refused:", e.code); }`,
		"jsdoc: true true", "names: js_tree,py_tree", "write refused:")
	run("lua", `local memory = require("servers.memory")
local r = memory.create_entities{entities = {{name = "lua_tree", entityType = "test", observations = json.array()}}}
print("created", r.entities[1].name)`, "created\tlua_tree")
	// A skill saved by one run is imported by the next, in each language.
	run("python", `print(skills.save(name="double_it", description="Double a number", language="python",
    code="return args['x'] * 2", parameters={"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}))`, "skills.double_it")
	run("python", `from skills.double_it import double_it
import skills.double_it as d
print("double:", double_it(x=21), open("skills/double_it/SKILL.md").read().count("Double a number"), callable(skills.save))`, "double: 42 1 True")
	run("javascript", `import { double_it } from "./skills/double_it/index.js";
console.log("double:", await double_it({x: 4}));`, "double: 8")
	run("lua", `print("double:", require("skills.double_it").double_it{x = 5})`, "double:\t10")

	// A tool the upstream adds shows in the run after search_tools sees it.
	mcp.AddTool(dyn, &mcp.Tool{Name: "translate_klingon", Description: "Translate English text into Klingon."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "nuqneH"}}}, nil, nil
		})
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for !strings.Contains(text(callTool(t, cs, "search_tools", map[string]any{"query": "klingon", "detail": "name"})), "dyn.translate_klingon") {
		if time.Now().After(deadline) {
			t.Fatal("search_tools never showed the tool added with list_changed")
		}
		time.Sleep(100 * time.Millisecond)
	}
	run("python", `from servers.dyn import translate_klingon
import os
print(sorted(f for f in os.listdir("servers/dyn") if f.endswith(".py")), translate_klingon())`,
		"['__init__.py', 'greet.py', 'translate_klingon.py'] nuqneH")
}
