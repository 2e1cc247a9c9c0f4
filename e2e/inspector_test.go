package e2e

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// inspector runs the MCP Inspector's CLI mode (a second real client, besides
// the go-sdk) with the given arguments and returns its stdout.
func inspector(t *testing.T, args ...string) string {
	t.Helper()
	cli := needNPM(t, "inspector")
	ctx := testCtx(t, testlog.Bound(3*time.Minute)) // node, then toolfold and its upstreams, on a loaded machine
	cmd := exec.CommandContext(ctx, setup.node, append([]string{cli, "--cli"}, args...)...)
	cmd.WaitDelay = exitGrace
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("inspector %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, out, &stderr)
	}
	return string(out)
}

// TestInspectorCLI drives toolfold with the MCP Inspector CLI over stdio and
// over streamable HTTP: the two tools are listed, and a script run through
// run_script reads two files of the filesystem upstream.
func TestInspectorCLI(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	cfg := writeConfig(t, configYAML(ups))
	script := `local n = 0
for _, f in ipairs{"notes.txt", "todo.txt"} do
  local _, c = string.gsub(tools.filesystem.read_text_file{path = f}.content, "\n", "")
  n = n + c
end
return n`

	check := func(name string, target []string) {
		var list struct{ Tools []struct{ Name string } }
		out := inspector(t, append(target, "--method", "tools/list")...)
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("%s: tools/list output is not JSON: %v\n%s", name, err, out)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if strings.Join(names, ",") != "run_script,search_tools" {
			t.Errorf("%s: tools/list = %v, want run_script and search_tools", name, names)
		}
		out = inspector(t, append(target, "--method", "tools/call", "--tool-name", "run_script", "--tool-arg", "code="+script)...)
		var res struct {
			Content []struct{ Text string }
			IsError bool
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Content) == 0 {
			t.Fatalf("%s: tools/call output: %v\n%s", name, err, out)
		}
		if res.IsError || !strings.Contains(res.Content[0].Text, "=> 7") {
			t.Errorf("%s: run_script = %q (isError %v), want => 7", name, res.Content[0].Text, res.IsError)
		}
	}
	check("stdio", []string{needToolfold(t), "serve", "-c", cfg})
	check("http", []string{startHTTP(t, cfg), "--transport", "http"})
}

// TestInspectorCLIPassthrough: in expose: passthrough, the Inspector CLI
// sees the npm everything server through toolfold as it is (tools, a tool
// call, prompts, resources), over stdio and HTTP.
func TestInspectorCLIPassthrough(t *testing.T) {
	t.Parallel()
	ups := map[string]upstream{"everything": npmUpstream(t, "everything")}
	cfg := writeConfig(t, configYAML(ups)+"expose: passthrough\n")
	check := func(name string, target []string) {
		call := func(args ...string) map[string]json.RawMessage {
			out := inspector(t, append(target, args...)...)
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &m); err != nil {
				t.Fatalf("%s: %v: output is not a JSON object: %v\n%s", name, args, err, out)
			}
			return m
		}
		var tools []struct{ Name string }
		if err := json.Unmarshal(call("--method", "tools/list")["tools"], &tools); err != nil {
			t.Fatalf("%s: tools/list: %v", name, err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		if !slices.Contains(names, "echo") || slices.Contains(names, "run_script") {
			t.Errorf("%s: tools/list = %v, want the upstream's own tools (echo, ...)", name, names)
		}
		if out := string(call("--method", "tools/call", "--tool-name", "echo", "--tool-arg", "message=via inspector")["content"]); !strings.Contains(out, "via inspector") {
			t.Errorf("%s: echo through toolfold = %s", name, out)
		}
		if out := string(call("--method", "prompts/list")["prompts"]); !strings.Contains(out, `"simple-prompt"`) {
			t.Errorf("%s: prompts/list = %s, want simple-prompt", name, out)
		}
		if out := string(call("--method", "prompts/get", "--prompt-name", "simple-prompt")["messages"]); !strings.Contains(out, `"role"`) {
			t.Errorf("%s: prompts/get simple-prompt = %s", name, out)
		}
		var resources []struct{ URI string }
		if err := json.Unmarshal(call("--method", "resources/list")["resources"], &resources); err != nil {
			t.Fatalf("%s: resources/list: %v", name, err)
		}
		if len(resources) == 0 {
			t.Fatalf("%s: resources/list is empty", name)
		}
		if out := string(call("--method", "resources/read", "--uri", resources[0].URI)["contents"]); !strings.Contains(out, resources[0].URI) {
			t.Errorf("%s: resources/read %s = %s", name, resources[0].URI, out)
		}
	}
	check("stdio", []string{needToolfold(t), "serve", "-c", cfg})
	check("http", []string{startHTTP(t, cfg), "--transport", "http"})
}
