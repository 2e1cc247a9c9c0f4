package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// npmServers are the npm reference servers' short names, as in their package names
// and as the upstream names the tests give them.
var npmServers = []string{"everything", "filesystem", "memory"}

// npmTrio returns the three npm servers as upstreams: filesystem rooted at a temp
// dir holding fsFiles, memory storing its graph in a temp file.
func npmTrio(t *testing.T) (ups map[string]upstream, root string) {
	t.Helper()
	root = fsRoot(t)
	mem := npmUpstream(t, "memory")
	mem.Env = map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "memory.jsonl")}
	return map[string]upstream{
		"everything": npmUpstream(t, "everything", "stdio"),
		"filesystem": npmUpstream(t, "filesystem", root),
		"memory":     mem,
	}, root
}

// fsFiles is the filesystem server's tree in the tests: two .txt files of 3 and 4
// lines, one other file and a directory.
var fsFiles = map[string]string{
	"notes.txt":     "alpha\nbeta\ngamma\n",
	"todo.txt":      "one\ntwo\nthree\nfour\n",
	"readme.md":     "# not a .txt file\nskip me\n",
	"sub/inner.txt": "inside a directory\n",
}

const fsTxtLines = 7 // lines in the top-level .txt files

func fsRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range fsFiles {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// connectDirect connects the go-sdk client straight to an upstream, no toolfold.
func connectDirect(t *testing.T, u upstream) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(u.Command, u.Args...)
	cmd.Env = os.Environ()
	for k, v := range u.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	cmd.WaitDelay = exitGrace
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, nil)
	// server-everything outlives a closed stdin when the session was shorter than
	// its 350 ms roots sync (a roots/list request keeps node alive), hence SIGTERM
	// after 2 s; shutdown through toolfold is what the other tests check.
	transport := &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	cs, err := client.Connect(testCtx(t, startTimeout), transport, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v\nstderr:\n%s", u.Command, err, stderr)
	}
	t.Cleanup(func() {
		tree := descendants(cmd.Process.Pid)
		_ = cs.Close()
		if left := waitGone(append(tree, proc{pid: cmd.Process.Pid}), exitGrace); len(left) > 0 {
			t.Errorf("upstream left running:\n%s", formatProcs(left))
			killAll(left)
		}
	})
	return cs
}

// listTools lists every tool, across pages, and returns them with the size of
// their JSON: what a client loads into the model's context.
func listTools(t *testing.T, cs *mcp.ClientSession) ([]*mcp.Tool, int) {
	t.Helper()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(testCtx(t, callTimeout), nil) {
		if err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		tools = append(tools, tool)
	}
	data, err := json.Marshal(tools)
	if err != nil {
		t.Fatal(err)
	}
	return tools, len(data)
}

// TestUpstreamsDirect connects to each real upstream without toolfold: it checks
// the installs and measures what toolfold saves (docs/figures.md quotes these figures).
func TestUpstreamsDirect(t *testing.T) {
	ups, _ := npmTrio(t)
	ups["go-everything"] = upstream{Command: needGoEverything(t)}
	// A call each, to see the servers work, not only list.
	probes := map[string]struct {
		tool string
		args map[string]any
		want string
	}{
		"everything":    {"get-sum", map[string]any{"a": 2, "b": 3}, "5"},
		"filesystem":    {"list_directory", map[string]any{"path": "ROOT"}, "[FILE] notes.txt"},
		"memory":        {"read_graph", map[string]any{}, "entities"},
		"go-everything": {"test_simple_text", map[string]any{}, "simple text response"},
	}
	total := 0
	for _, name := range []string{"everything", "filesystem", "memory", "go-everything"} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			cs := connectDirect(t, ups[name])
			connected := time.Since(start)
			tools, size := listTools(t, cs)
			if len(tools) == 0 {
				t.Fatal("no tools")
			}
			if name != "go-everything" {
				total += size
			}
			t.Logf("%s: protocol %s, connected in %v, %d tools, tools/list JSON %d bytes",
				name, cs.InitializeResult().ProtocolVersion, connected.Round(time.Millisecond), len(tools), size)
			p := probes[name]
			if p.args["path"] == "ROOT" {
				p.args["path"] = ups["filesystem"].Args[1]
			}
			res, err := cs.CallTool(testCtx(t, callTimeout), &mcp.CallToolParams{Name: p.tool, Arguments: p.args})
			if err != nil {
				t.Fatalf("%s: %v", p.tool, err)
			}
			if res.IsError || !strings.Contains(text(res), p.want) {
				t.Errorf("%s: isError=%v, text %q, want it to contain %q", p.tool, res.IsError, text(res), p.want)
			}
		})
	}
	t.Logf("the three npm servers' tools/list JSON: %d bytes in all", total)
}
