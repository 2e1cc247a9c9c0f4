package e2e

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/tokens"
)

// maxToolsJSON is the most the two advertised tools may cost a client: their
// tools/list JSON, in bytes.
const maxToolsJSON = 2500

// maxToolsTokens bounds the same in tokens: 547 before the servers/ tree's
// sentence, plus 10%.
const maxToolsTokens = 601

// lua fills {{name}} placeholders in a Lua script with quoted string literals.
func lua(code string, vars ...string) string {
	for i := 0; i+1 < len(vars); i += 2 {
		code = strings.ReplaceAll(code, "{{"+vars[i]+"}}", luaString(vars[i+1]))
	}
	return code
}

func TestToolsList(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))
	tools, size := listTools(t, cs)

	var names []string
	var descriptions strings.Builder
	for _, tool := range tools {
		names = append(names, tool.Name)
		descriptions.WriteString(tool.Description + "\n")
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"run_script", "search_tools"}, names); diff != "" {
		t.Fatalf("advertised tools (-want +got):\n%s", diff)
	}
	if size > maxToolsJSON {
		t.Errorf("tools/list JSON is %d bytes, want at most %d", size, maxToolsJSON)
	}
	data, _ := json.Marshal(tools)
	if n := tokens.Count(string(data)); n > maxToolsTokens {
		t.Errorf("tools/list costs %d tokens, want at most %d", n, maxToolsTokens)
	}
	if !strings.Contains(descriptions.String(), "servers/ and skills/") {
		t.Errorf("run_script's description does not say servers/ and skills/ exist:\n%s", descriptions.String())
	}
	for _, server := range npmServers {
		if !strings.Contains(descriptions.String(), server) {
			t.Errorf("tool descriptions do not name upstream %q:\n%s", server, descriptions.String())
		}
	}
	for _, tool := range tools {
		want := map[string]string{"search_tools": "query", "run_script": "code"}[tool.Name]
		if req := required(t, tool); !slices.Contains(req, want) {
			t.Errorf("%s: required arguments %v, want %q among them", tool.Name, req, want)
		}
	}

	direct := 0
	for _, name := range npmServers {
		_, n := listTools(t, connectDirect(t, ups[name]))
		direct += n
	}
	t.Logf("descriptions:\n%s", descriptions.String())
	t.Logf("tools/list JSON: %d bytes through toolfold, %d bytes from the three servers directly (%.1f%% saved)",
		size, direct, 100*(1-float64(size)/float64(direct)))
}

// required returns the tool's input schema's required property names.
func required(t *testing.T, tool *mcp.Tool) []string {
	t.Helper()
	data, err := json.Marshal(tool.InputSchema)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct{ Required []string }
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatalf("%s input schema: %v", tool.Name, err)
	}
	return schema.Required
}

func TestSearchTools(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))

	t.Run("read a text file", func(t *testing.T) {
		res := callTool(t, cs, "search_tools", map[string]any{"query": "read a text file", "detail": "name"})
		names := qualifiedNames(text(res))
		if res.IsError || len(names) == 0 {
			t.Fatalf("isError=%v, no qualified names in:\n%s", res.IsError, text(res))
		}
		top := names[:min(3, len(names))]
		if !slices.Contains(top, "filesystem.read_text_file") && !slices.Contains(top, "filesystem.read_file") {
			t.Errorf("top 3 %v, want filesystem.read_text_file or filesystem.read_file; all:\n%s", top, text(res))
		}
	})
	t.Run("server filter", func(t *testing.T) {
		res := callTool(t, cs, "search_tools", map[string]any{"query": "create", "detail": "name", "server": "memory"})
		names := qualifiedNames(text(res))
		if len(names) == 0 {
			t.Fatalf("no names in:\n%s", text(res))
		}
		for _, n := range names {
			if !strings.HasPrefix(n, "memory.") {
				t.Errorf("server=memory returned %s", n)
			}
		}
	})
	t.Run("limit", func(t *testing.T) {
		res := callTool(t, cs, "search_tools", map[string]any{"query": "file", "detail": "name", "limit": 2})
		if names := qualifiedNames(text(res)); len(names) != 2 {
			t.Errorf("limit 2 gave %d names:\n%s", len(names), text(res))
		}
	})
	t.Run("full detail shows the Lua call", func(t *testing.T) {
		res := callTool(t, cs, "search_tools", map[string]any{"query": "read_text_file", "detail": "full", "limit": 1})
		if got := text(res); !strings.Contains(got, "tools.filesystem.read_text_file") {
			t.Errorf("full detail lacks the Lua call syntax tools.filesystem.read_text_file:\n%s", got)
		}
	})
}

// lineCountScript lists the filesystem root, reads each top-level .txt file and
// returns their total line count. It uses both call forms.
const lineCountScript = `local root = {{root}}
local listing = tools.filesystem.list_directory{path = root}
local files, total = {}, 0
for name in listing.content:gmatch("%[FILE%] ([^\n]+%.txt)") do
  files[#files + 1] = name
end
table.sort(files)
for _, name in ipairs(files) do
  local file = call("filesystem.read_text_file", {path = root .. "/" .. name})
  local _, lines = file.content:gsub("\n", "")
  total = total + lines
end
print("files: " .. table.concat(files, ", "))
return total`

func TestScriptLineCount(t *testing.T) {
	t.Parallel()
	ups, root := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))
	checkLineCount(t, cs, root)
}

func checkLineCount(t *testing.T, cs *mcp.ClientSession, root string) {
	t.Helper()
	out := scriptOK(t, cs, lua(lineCountScript, "root", root))
	if !strings.Contains(out, "files: notes.txt, todo.txt\n") {
		t.Errorf("printed output missing from:\n%s", out)
	}
	var total int
	if returned(t, out, &total); total != fsTxtLines {
		t.Errorf("script returned %d lines, want %d:\n%s", total, fsTxtLines, out)
	}
	if n := footerCalls(t, out); n != 3 {
		t.Errorf("footer counts %d tool calls, want 3:\n%s", n, out)
	}
}

func TestScriptMemory(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))
	out := scriptOK(t, cs, `tools.memory.create_entities{entities = {
  {name = "toolfold-e2e", entityType = "test", observations = {"stored by a script"}},
}}
local graph = tools.memory.open_nodes{names = {"toolfold-e2e"}}
local e = graph.entities[1]
return {count = #graph.entities, name = e.name, type = e.entityType, observation = e.observations[1]}`)
	var got map[string]any
	returned(t, out, &got)
	want := map[string]any{"count": 1.0, "name": "toolfold-e2e", "type": "test", "observation": "stored by a script"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entity read back (-want +got):\n%s\nfull text:\n%s", diff, out)
	}
	stored, err := os.ReadFile(ups["memory"].Env["MEMORY_FILE_PATH"])
	if err != nil || !strings.Contains(string(stored), "stored by a script") {
		t.Errorf("memory file does not hold the entity (err %v):\n%s", err, stored)
	}
}

// emptyEntitiesRE matches an empty "entities" array in JSON, however spaced.
var emptyEntitiesRE = regexp.MustCompile(`"entities"\s*:\s*\[\s*\]`)

// TestScriptEmptyArrays: an empty Lua table reaches the upstream as [] where the
// tool's input schema says array (the memory server rejects {}), and an empty
// array a tool returns stays one through json.encode.
func TestScriptEmptyArrays(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(map[string]upstream{"memory": ups["memory"]})))

	// First, while the graph is empty.
	t.Run("empty array from a tool, json.encode", func(t *testing.T) {
		out := scriptOK(t, cs, "local g = tools.memory.read_graph{}\nreturn json.encode(g)")
		var encoded string
		if returned(t, out, &encoded); !emptyEntitiesRE.MatchString(encoded) {
			t.Errorf("json.encode(read_graph{}) of an empty graph = %s, want \"entities\":[]\nfull text:\n%s", encoded, out)
		}
	})
	t.Run("empty table for an array argument", func(t *testing.T) {
		out := scriptOK(t, cs, `tools.memory.create_entities{entities = {{name = "e", entityType = "t", observations = {}}}}
local g = tools.memory.open_nodes{names = {"e"}}
return {entities = #g.entities, name = g.entities[1].name, observations = #g.entities[1].observations}`)
		var got map[string]any
		returned(t, out, &got)
		want := map[string]any{"entities": 1.0, "name": "e", "observations": 0.0}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("entity with no observations read back (-want +got):\n%s\nfull text:\n%s", diff, out)
		}
	})
}

func TestScriptAcrossServers(t *testing.T) {
	t.Parallel()
	ups, root := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))
	// filesystem -> everything (a name with "-", a plain-text result) -> memory.
	out := scriptOK(t, cs, lua(`local file = tools.filesystem.read_text_file{path = {{root}} .. "/todo.txt"}
local _, lines = file.content:gsub("\n", "")
local sum = tools.everything.get_sum{a = lines, b = 100}
local total = tonumber(sum:match("is (%d+)"))
tools.memory.create_entities{entities = {
  {name = "todo.txt", entityType = "file", observations = {"lines=" .. lines, "plus100=" .. total}},
}}
local found = tools.memory.search_nodes{query = "todo.txt"}
local obs = found.entities[1].observations
return {lines = tonumber(obs[1]:match("lines=(%d+)")), total = tonumber(obs[2]:match("plus100=(%d+)"))}`, "root", root))
	var got map[string]int
	returned(t, out, &got)
	if diff := cmp.Diff(map[string]int{"lines": 4, "total": 104}, got); diff != "" {
		t.Errorf("computed answer (-want +got):\n%s\nfull text:\n%s", diff, out)
	}
	if n := footerCalls(t, out); n != 4 {
		t.Errorf("footer counts %d tool calls, want 4:\n%s", n, out)
	}
}

func TestScriptErrors(t *testing.T) {
	t.Parallel()
	ups, root := npmTrio(t)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))
	for _, tc := range []struct {
		name, code string
		want       []string // all must appear in the isError text
	}{
		{"runtime error line", "local x = 1\nerror(\"boom\")", []string{"script:2:", "boom"}},
		{"syntax error", "local x = 1\nlocal = 2\nreturn x", []string{"script:2:", "syntax error"}},
		{"syntax error at the end", "local x = 1\nreturn (", []string{"script:", "syntax error"}},
		{"upstream error", lua(`local x = 1
return tools.filesystem.read_text_file{path = {{path}}}`, "path", root+"/missing.txt"), []string{"script:2:", "ENOENT"}},
		{"unknown tool", "return tools.filesystem.raed_file{path = \"x\"}", []string{"script:1:", "unknown tool", "did you mean"}},
		{"unknown tool via call", "\nreturn call(\"filesystem.raed_file\", {})", []string{"script:2:", "unknown tool", "did you mean"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := scriptErr(t, cs, tc.code)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("error text lacks %q:\n%s", w, out)
				}
			}
			if strings.Contains(tc.name, "unknown tool") && !strings.Contains(out, "read_file") && !strings.Contains(out, "read_text_file") {
				t.Errorf("suggestions name neither read_file nor read_text_file:\n%s", out)
			}
		})
	}
	t.Run("pcall catches upstream and unknown-tool errors", func(t *testing.T) {
		out := scriptOK(t, cs, lua(`local ok1, err1 = pcall(function() return tools.filesystem.read_text_file{path = {{path}}} end)
local ok2, err2 = pcall(function() return tools.filesystem.raed_file{} end)
return {ok1 = ok1, err1 = tostring(err1), ok2 = ok2, err2 = tostring(err2)}`, "path", root+"/missing.txt"))
		var got struct {
			OK1, OK2   bool
			Err1, Err2 string
		}
		returned(t, out, &got)
		if got.OK1 || !strings.Contains(got.Err1, "ENOENT") {
			t.Errorf("pcall(read missing file) = %v, %q; want false and the upstream's ENOENT message", got.OK1, got.Err1)
		}
		if got.OK2 || !strings.Contains(got.Err2, "unknown tool") {
			t.Errorf("pcall(unknown tool) = %v, %q; want false, unknown tool", got.OK2, got.Err2)
		}
	})
}

func TestScriptLimits(t *testing.T) {
	t.Parallel()
	// 5 s: long enough that a trivial run on a loaded CI machine (the
	// race-built binary spawning a sandbox) does not reach it.
	cfg := configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}, "timeout: 5s", "output: 1KiB")
	cs := startStdio(t, writeConfig(t, cfg))

	t.Run("timeout", func(t *testing.T) {
		// The deadline, not a timed assertion: 5 s of script plus a loaded
		// machine's slack.
		ctx := testCtx(t, 5*time.Second+callTimeout)
		res := callToolCtx(ctx, t, cs, "run_script", map[string]any{"code": "while true do end"})
		if !res.IsError || !strings.Contains(text(res), "timed out") {
			t.Errorf("isError=%v, want true and \"timed out\":\n%s", res.IsError, text(res))
		}
	})
	t.Run("runs again after a timeout", func(t *testing.T) {
		var got int
		if returned(t, scriptOK(t, cs, "return 1 + 1"), &got); got != 2 {
			t.Errorf("return 1 + 1 gave %d", got)
		}
	})
	t.Run("output cap", func(t *testing.T) {
		res := runScript(t, cs, `for i = 1, 1000 do print(string.rep("x", 99)) end`)
		out := text(res)
		if !strings.Contains(out, "output truncated") {
			t.Errorf("100 KB of output against a 1 KiB cap: no \"output truncated\" in %d bytes:\n%.2000s", len(out), out)
		}
		if len(out) > 4096 {
			t.Errorf("capped output is %d bytes, want about 1 KiB plus notices", len(out))
		}
	})
}
