package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// runLang runs code in language with run_script.
func runLang(t *testing.T, cs *mcp.ClientSession, language, code string) (string, bool) {
	t.Helper()
	res := callTool(t, cs, "run_script", map[string]any{"code": code, "language": language})
	return text(res), res.IsError
}

func langOK(t *testing.T, cs *mcp.ClientSession, language, code string) string {
	t.Helper()
	out, failed := runLang(t, cs, language, code)
	if failed {
		t.Fatalf("run_script (%s) failed:\n%s\n--- code:\n%s", language, out, code)
	}
	return out
}

func langErr(t *testing.T, cs *mcp.ClientSession, language, code string) string {
	t.Helper()
	out, failed := runLang(t, cs, language, code)
	if !failed {
		t.Fatalf("run_script (%s) succeeded, want isError:\n%s\n--- code:\n%s", language, out, code)
	}
	return out
}

// fill replaces {{name}} placeholders with JSON string literals, which
// Python and JavaScript both read.
func fill(code string, vars ...string) string {
	for i := 0; i+1 < len(vars); i += 2 {
		code = strings.ReplaceAll(code, "{{"+vars[i]+"}}", quote(vars[i+1]))
	}
	return code
}

// langScripts are the foundation's cross-server scripts in Python and
// JavaScript: filesystem -> everything (a name with "-", a plain-text
// result) -> memory, and the error and concurrency cases.
var langScripts = map[string]map[string]string{
	"python": {
		"across": `import re
file = tools.filesystem.read_text_file(path={{root}} + "/todo.txt")
lines = file["content"].count("\n")
total = int(re.search(r"is (\d+)", tools.everything.get_sum(a=lines, b=100)).group(1))
tools.memory.create_entities(entities=[{"name": "todo.txt", "entityType": "file", "observations": [f"lines={lines}", f"plus100={total}"]}])
obs = tools.memory.search_nodes(query="todo.txt")["entities"][0]["observations"]
return {"lines": int(obs[0].split("=")[1]), "total": int(obs[1].split("=")[1])}`,
		"upstream error": "x = 1\nreturn tools.filesystem.read_text_file(path={{missing}})",
		"unknown tool":   "\nreturn call(\"filesystem.raed_file\", {})",
		"syntax error":   "x = 1\ny = = 2",
		"catch": `try:
    tools.filesystem.read_text_file(path={{missing}})
except ToolError as e:
    return str(e)`,
		"parallel": `import asyncio
sums = await asyncio.gather(*[tools.everything.get_sum.acall(a=i, b=1) for i in range(5)])
return [s.split()[-1].rstrip(".") for s in sums]`,
		"empty array": `g = tools.memory.read_graph()
return [type(g["entities"]).__name__, g["entities"]]`,
		"write state": `open("state.txt", "w").write("kept")`,
		"read state":  `return open("state.txt").read()`,
		"search":      `return search_tools("sum two numbers", detail="name")`,
	},
	"javascript": {
		"across": `const file = await tools.filesystem.read_text_file({path: {{root}} + "/todo.txt"})
const lines = file.content.split("\n").length - 1
const total = Number(/is (\d+)/.exec(await tools.everything.get_sum({a: lines, b: 100}))[1])
await tools.memory.create_entities({entities: [{name: "todo.txt", entityType: "file", observations: [` + "`lines=${lines}`, `plus100=${total}`" + `]}]})
const obs = (await tools.memory.search_nodes({query: "todo.txt"})).entities[0].observations
return {lines: Number(obs[0].split("=")[1]), total: Number(obs[1].split("=")[1])}`,
		"upstream error": "const x = 1\nreturn await tools.filesystem.read_text_file({path: {{missing}}})",
		"unknown tool":   "\nreturn await call(\"filesystem.raed_file\", {})",
		"syntax error":   "const x = 1\nconst y = = 2",
		"catch": `try {
  await tools.filesystem.read_text_file({path: {{missing}}})
} catch (e) {
  if (!(e instanceof ToolError)) throw e
  return e.message
}`,
		"parallel": `const sums = await Promise.all([0, 1, 2, 3, 4].map((i) => tools.everything.get_sum({a: i, b: 1})))
return sums.map((s) => s.split(" ").pop().replace(".", ""))`,
		"empty array": `const g = await tools.memory.read_graph({})
return [Array.isArray(g.entities) ? "list" : typeof g.entities, g.entities]`,
		"write state": `require("fs").writeFileSync("state.txt", "kept")`,
		"read state":  `return require("fs").readFileSync("state.txt", "utf8")`,
		"search":      `return await searchTools("sum two numbers", "name")`,
	},
}

func TestLanguages(t *testing.T) {
	t.Parallel()
	ups, root := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))
	tools, _ := listTools(t, cs)
	served := map[string]bool{}
	for _, tool := range tools {
		if tool.Name != "run_script" {
			continue
		}
		schema, _ := json.Marshal(tool.InputSchema)
		for _, want := range []string{"lua", "python", "javascript"} {
			served[want] = strings.Contains(string(schema), `"`+want+`"`)
		}
		for lang, want := range map[string]string{"python": "tools.server.tool(key=value)", "javascript": "await tools.server.tool({key: value})"} {
			if served[lang] && !strings.Contains(tool.Description, want) {
				t.Errorf("run_script's description lacks %q:\n%s", want, tool.Description)
			}
		}
	}
	if !served["lua"] {
		t.Fatal("run_script does not offer lua")
	}
	missing := root + "/missing.txt"
	for _, lang := range []string{"python", "javascript"} {
		s := langScripts[lang]
		t.Run(lang, func(t *testing.T) {
			needLanguage(t, served[lang], lang)
			t.Run("across servers", func(t *testing.T) {
				out := langOK(t, cs, lang, fill(s["across"], "root", root))
				var got map[string]int
				returned(t, out, &got)
				if diff := cmp.Diff(map[string]int{"lines": 4, "total": 104}, got); diff != "" {
					t.Errorf("computed answer (-want +got):\n%s\nfull text:\n%s", diff, out)
				}
				if n := footerCalls(t, out); n != 4 {
					t.Errorf("footer counts %d tool calls, want 4:\n%s", n, out)
				}
			})
			for _, tc := range []struct {
				name string
				want []string
			}{
				{"upstream error", []string{"script:2:", "ENOENT"}},
				{"unknown tool", []string{"script:2:", "unknown tool", "did you mean"}},
				{"syntax error", []string{"script:2:"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					out := langErr(t, cs, lang, fill(s[tc.name], "missing", missing))
					for _, w := range tc.want {
						if !strings.Contains(out, w) {
							t.Errorf("error text lacks %q:\n%s", w, out)
						}
					}
				})
			}
			t.Run("ToolError is catchable", func(t *testing.T) {
				var msg string
				returned(t, langOK(t, cs, lang, fill(s["catch"], "missing", missing)), &msg)
				if !strings.Contains(msg, "ENOENT") {
					t.Errorf("caught %q, want the upstream's ENOENT message", msg)
				}
			})
			t.Run("parallel calls", func(t *testing.T) {
				out := langOK(t, cs, lang, s["parallel"])
				var got []string
				returned(t, out, &got)
				if diff := cmp.Diff([]string{"1", "2", "3", "4", "5"}, got); diff != "" {
					t.Errorf("sums (-want +got):\n%s\nfull text:\n%s", diff, out)
				}
			})
			t.Run("empty array stays a list", func(t *testing.T) {
				out := langOK(t, cs, lang, s["empty array"])
				var got []any
				returned(t, out, &got)
				if len(got) != 2 || got[0] != "list" {
					t.Errorf("read_graph().entities = %v, want a list\nfull text:\n%s", got, out)
				}
			})
			t.Run("workspace persists across runs", func(t *testing.T) {
				langOK(t, cs, lang, s["write state"])
				var got string
				returned(t, langOK(t, cs, lang, s["read state"]), &got)
				if got != "kept" {
					t.Errorf("read back %q, want \"kept\"", got)
				}
			})
			t.Run("search_tools", func(t *testing.T) {
				var got string
				returned(t, langOK(t, cs, lang, s["search"]), &got)
				if !strings.Contains(got, "everything.get") {
					t.Errorf("search from %s = %q, want everything's get-sum", lang, got)
				}
			})
		})
	}
}

func TestCheckLanguages(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("python3")
	needLanguage(t, err == nil, "python")
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}, `node: "/nonexistent/node"`))
	res := runCLI(t, "check", "-c", cfg)
	for _, want := range []string{
		"language lua: available",
		"language python: available (3.",
		"language javascript: error: /nonexistent/node: no such file or directory; install Node.js 18 or later or set sandbox.node",
		"sandbox python: ok",
		// e2e builds both binaries, as `go install ./cmd/...` does.
		"sandbox processes start from " + filepath.Join(filepath.Dir(needToolfold(t)), "toolfold-sandbox") + " (same build",
		"warm runs: on: when a run ends, serve starts the session's next run's sandbox and interpreter (sandbox.warm)",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("check output lacks %q:\n%s", want, res.stdout)
		}
	}
	if res.code == 0 {
		t.Errorf("check exited 0 with a configured interpreter missing:\n%s", res.stdout)
	}
}

// TestWorkspacePerHTTPSession: over HTTP each session has its own
// workspace, removed when the client ends the session while toolfold
// keeps serving; the last ones go at shutdown (startHTTP's checkTmp).
func TestWorkspacePerHTTPSession(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("python3")
	needLanguage(t, err == nil, "python")
	p, url := startHTTPProc(t, writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")})))
	sessions := func() []string {
		dirs, _ := filepath.Glob(filepath.Join(p.tmp, "toolfold-workspaces-*", "session-*"))
		return dirs
	}
	a, b := connectHTTP(t, url), connectHTTP(t, url)
	langOK(t, a, "python", `open("mark", "w").write("a")`)
	var seen bool
	returned(t, langOK(t, b, "javascript", `return require("fs").existsSync("mark")`), &seen)
	if seen {
		t.Error("session b sees session a's file")
	}
	if got := sessions(); len(got) != 2 {
		t.Fatalf("workspaces = %v, want one per session", got)
	}
	a.Close()
	deadline := time.Now().Add(exitGrace)
	for len(sessions()) != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("workspaces after session a ended: %v", sessions())
		}
		time.Sleep(20 * time.Millisecond)
	}
	returned(t, langOK(t, b, "python", `import os
return os.path.exists("mark")`), &seen)
	if seen {
		t.Error("session b sees session a's file after a ended")
	}
}

// needLanguage skips a test of a language toolfold does not offer here
// (its interpreter is not installed), and fails it under CI=true.
func needLanguage(t *testing.T, served bool, lang string) {
	t.Helper()
	if served {
		return
	}
	msg := "run_script does not offer " + lang + " here (is python3 / node 18+ on PATH?)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// TestWarmRunsThroughTheBinary: toolfold serve (sandbox.warm is on by
// default) answers a session's later runs from the child it started when
// the previous run ended, and its first runs from the children it started
// with the session (sandbox.prestart: Lua and Python by default; a first
// JavaScript run is cold). The runs see
// the session's workspace as cold runs do, and no child is left when
// toolfold exits (startStdioEnv's cleanup checks).
func TestWarmRunsThroughTheBinary(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("python3")
	needLanguage(t, err == nil, "python")
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}))
	p := startStdioEnv(t, cfg, "TOOLFOLD_LOG=debug")
	// Each run logs "run finished … warm=…" before it answers; toolfold's
	// stderr reaches p.stderr through a copying goroutine, so wait for the
	// line rather than read it at once.
	finished := 0
	nextRun := func() (warm bool) {
		t.Helper()
		finished++
		deadline := time.Now().Add(testlog.Bound(time.Minute))
		for {
			lines := regexp.MustCompile(`msg="run finished"[^\n]*? warm=(true|false)`).FindAllStringSubmatch(p.stderr.String(), -1)
			if len(lines) >= finished {
				return lines[finished-1][1] == "true"
			}
			if time.Now().After(deadline) {
				t.Fatalf("no log line for run %d:\n%s", finished, p.stderr)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	// A model reads the tool list before its first script. The child is
	// started when the session's first request comes, in the background;
	// a run 4 ms after that request, on CI's loaded cores, found no child
	// yet and started cold.
	time.Sleep(time.Second)
	langOK(t, p.cs, "python", `open("n.txt", "w").write("1")`)
	if !nextRun() {
		t.Fatal("the session's first run was cold: its child should have started with the session (sandbox.prestart)")
	}
	for i := 2; i <= 3; i++ {
		time.Sleep(time.Second) // a model reading the answer; the next child starts meanwhile
		out := langOK(t, p.cs, "python", `n = int(open("n.txt").read()) + 1
open("n.txt", "w").write(str(n))
return n`)
		if !strings.Contains(out, "=> "+strconv.Itoa(i)) {
			t.Fatalf("run %d: %s", i, out)
		}
		if !nextRun() {
			t.Errorf("run %d was cold:\n%s", i, p.stderr)
		}
	}
	time.Sleep(time.Second)
	if out := langOK(t, p.cs, "lua", `return 1`); !strings.Contains(out, "=> 1") || !nextRun() {
		t.Errorf("lua's first run: %s (want it warm: lua is in sandbox.prestart's default)", out)
	}
	if out := langOK(t, p.cs, "javascript", `return 1`); !strings.Contains(out, "=> 1") || nextRun() {
		t.Errorf("javascript's first run: %s (want it cold: node is not prestarted by default)", out)
	}
}
