package e2e

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// inspector runs the MCP Inspector's CLI mode (a second real client, besides
// the go-sdk) with the given arguments and returns its stdout.
func inspector(t *testing.T, args ...string) string {
	t.Helper()
	cli := needNPM(t, "inspector")
	ctx := testCtx(t, 90*time.Second)
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
