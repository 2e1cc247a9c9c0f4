package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTestTree writes a small code API tree (as package codeapi would)
// with one server, memory, and one tool, hello, in each language.
func writeTestTree(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"servers/README.md":           "# servers\n- memory/ (1 tool)\n",
		"servers/memory/__init__.py":  "from .hello import hello\n",
		"servers/memory/hello.py":     "from toolfold import call\n\ndef hello(*, name):\n    return call('memory.hello', {'name': name})\n",
		"servers/memory/index.js":     "module.exports = { hello: require('./hello.js').hello };\n",
		"servers/memory/hello.js":     "const { call } = globalThis.__toolfold;\nmodule.exports = { hello: (args) => call('memory.hello', args) };\n",
		"servers/memory/init.lua":     "local M = {}\nM.hello = require('servers.memory.hello')\nreturn M\n",
		"servers/memory/hello.lua":    "local call = call\nreturn function(args) return call('memory.hello', args) end\n",
		"skills/__init__.py":          "from toolfold import skills as _s\nsave = _s.save\n",
		"skills/greet/__init__.py":    "from toolfold import call\n\ndef greet(**kw):\n    return call('skills.greet', kw)\n",
		"skills/greet/init.lua":       "return {greet = function(a) return call('skills.greet', a) end}\n",
		"skills/greet/index.js":       "module.exports = { greet: (a) => globalThis.__toolfold.call('skills.greet', a) };\n",
		"servers/memory/not_lua.json": "{}",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestTreeImports: a run with Request.Tree lists, reads and imports the
// tree in each language, calls through the bridge, and cannot write it.
func TestTreeImports(t *testing.T) {
	needSandbox(t)
	tree := writeTestTree(t)
	cases := []struct {
		lang   string
		runner func(t *testing.T) Runner
		code   string
	}{
		{"python", func(t *testing.T) Runner { return newTestPython(t) }, `import os
from servers.memory import hello
import skills.greet
print(sorted(os.listdir("servers")), open("servers/README.md").read().split("\n")[0])
print(hello(name="py")["tool"], skills.greet.greet(x=1)["tool"], callable(skills.save))
try:
    open("servers/memory/new.py", "w")
    print("wrote")
except OSError as e:
    print("refused", e.errno)
`},
		{"javascript", func(t *testing.T) Runner { return newTestNode(t) }, `import { hello } from "./servers/memory/index.js";
import * as greet from "./skills/greet/index.js"
const fs = require("fs");
console.log(JSON.stringify(fs.readdirSync("servers").sort()), fs.readFileSync("servers/README.md", "utf8").split("\n")[0]);
const dyn = await import("./servers/memory/index.js"), os = await import("node:os");
console.log((await hello({name: "js"})).tool, (await greet.greet({x: 1})).tool, dyn.hello === hello && typeof os.cpus === "function" ? "True" : "dynamic import differs");
try { fs.writeFileSync("servers/memory/new.js", "x"); console.log("wrote"); } catch (e) { console.log("refused", e.code); }`},
		{"lua", func(t *testing.T) Runner { return newTestLua(t) }, `local memory = require("servers.memory")
local greet = require("skills.greet")
print("README.md memory", "# servers")
print(memory.hello{name = "lua"}.tool, greet.greet{x = 1}.tool, "True")
print(pcall(require, "servers.memory.not_lua"))
print(pcall(require, "json"))
print(require("servers.memory") == memory)`},
	}
	for _, c := range cases {
		t.Run(c.lang, func(t *testing.T) {
			r := c.runner(t)
			host := &fakeHost{}
			res, err := r.Run(context.Background(), Request{Code: c.code, Language: c.lang, Tree: tree, Workdir: t.TempDir()}, host)
			if err != nil {
				t.Fatal(err)
			}
			if res.Err != nil {
				t.Fatalf("%v\n%s", res.Err, res.Output)
			}
			out := res.Output
			for _, want := range []string{"README.md", "memory", "# servers", "memory.hello", "skills.greet", "True"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "wrote") {
				t.Errorf("a script wrote into servers/:\n%s", out)
			}
			if c.lang == "lua" && !strings.Contains(out, "require: no module \"servers.memory.not_lua\"") || c.lang == "lua" && !strings.Contains(out, "only modules of servers/") {
				t.Errorf("lua require of a missing or foreign module:\n%s", out)
			}
			if c.lang != "lua" && !strings.Contains(out, "refused") {
				t.Errorf("writing into servers/ was not refused:\n%s", out)
			}
		})
	}
}
