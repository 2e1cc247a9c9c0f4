package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestInstall puts toolfold into a Claude Desktop file holding two npm
// servers and another key, runs the entry install left there as the client
// would, and takes toolfold out again.
func TestInstall(t *testing.T) {
	t.Parallel()
	memory, filesystem := npmUpstream(t, "memory"), npmUpstream(t, "filesystem", t.TempDir())
	dir := t.TempDir()
	clientFile := filepath.Join(dir, "Claude", "claude_desktop_config.json")
	servers := map[string]any{
		"memory":     map[string]any{"command": memory.Command, "args": memory.Args},
		"filesystem": map[string]any{"command": filesystem.Command, "args": filesystem.Args},
	}
	orig, _ := json.MarshalIndent(map[string]any{"globalShortcut": "Ctrl+Space", "mcpServers": servers}, "", "  ")
	os.MkdirAll(filepath.Dir(clientFile), 0o700)
	if err := os.WriteFile(clientFile, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	tfFile := filepath.Join(dir, "toolfold", "servers.json")

	res := runCLI(t, "install", "claude-desktop", "--client-config", clientFile, "--config", tfFile)
	if res.code != 0 || !strings.Contains(res.stdout, "move to "+tfFile+": ") {
		t.Fatalf("install: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	backups, _ := filepath.Glob(clientFile + ".toolfold-backup-*")
	if len(backups) != 1 {
		t.Fatalf("backups beside the client's file: %v, want one", backups)
	}
	if b, _ := os.ReadFile(backups[0]); string(b) != string(orig) {
		t.Errorf("the backup is not the file as it was:\n%s", b)
	}
	var after struct {
		GlobalShortcut string `json:"globalShortcut"`
		MCPServers     map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	readJSONFile(t, clientFile, &after)
	if after.GlobalShortcut != "Ctrl+Space" {
		t.Errorf("globalShortcut = %q, want it kept", after.GlobalShortcut)
	}
	entry, ok := after.MCPServers["toolfold"]
	if len(after.MCPServers) != 1 || !ok {
		t.Fatalf("client servers after install: %+v, want one toolfold entry", after.MCPServers)
	}
	exe, _ := filepath.EvalSymlinks(needToolfold(t))
	if !filepath.IsAbs(entry.Command) || entry.Command != exe {
		t.Errorf("entry command %q, want the binary's absolute path %q", entry.Command, exe)
	}

	// check on the file install wrote shows the sample's policy and an audit
	// log on: install keeps them, as JSON keys beside the servers.
	chk := runCLIWithin(t, 3*cliTimeout, "check", "-c", tfFile)
	if chk.code != 0 {
		t.Errorf("check -c %s: exit %d\n%s%s", tfFile, chk.code, chk.stdout, chk.stderr)
	}
	for _, want := range []string{
		"policy: default allow, 1 rule (1 ask)",
		"audit: " + filepath.Join(filepath.Dir(tfFile), "audit.jsonl") + ", rotated",
	} {
		if !strings.Contains(chk.stdout, want) {
			t.Errorf("check -c %s does not say %q:\n%s", tfFile, want, chk.stdout)
		}
	}

	// The entry, run as the client runs it, serves the two tools and finds
	// the moved servers' tools.
	cs := startEntry(t, entry.Command, entry.Args)
	tools, _ := listTools(t, cs)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"run_script", "search_tools"}, names); diff != "" {
		t.Errorf("the installed entry's tools (-want +got):\n%s", diff)
	}
	for query, want := range map[string]string{
		"create entities in the knowledge graph": "memory.create_entities",
		"read a text file":                       "filesystem.read_text_file",
	} {
		waitSearch(t, cs, query, want)
	}

	// Uninstall puts the servers back as they were.
	res = runCLI(t, "uninstall", "claude-desktop", "--client-config", clientFile, "--config", tfFile)
	if res.code != 0 {
		t.Fatalf("uninstall: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	var restored struct {
		GlobalShortcut string         `json:"globalShortcut"`
		MCPServers     map[string]any `json:"mcpServers"`
	}
	readJSONFile(t, clientFile, &restored)
	var want map[string]any
	json.Unmarshal(orig, &want)
	if diff := cmp.Diff(want["mcpServers"], restored.MCPServers); diff != "" || restored.GlobalShortcut != "Ctrl+Space" {
		t.Errorf("client servers after uninstall (-want +got):\n%s\nglobalShortcut %q", diff, restored.GlobalShortcut)
	}
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
}

// startEntry runs a client entry's command (toolfold) and connects the
// go-sdk client to it over stdio, with the leftover checks of startStdio.
func startEntry(t *testing.T, command string, args []string) *mcp.ClientSession {
	t.Helper()
	p := &toolfoldProc{t: t, stderr: &syncBuffer{}}
	p.cmd, p.tmp = toolfoldCmd(t, context.Background(), args...)
	p.cmd.Path = command
	p.cmd.Stderr = p.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "toolfold-e2e", Version: "0"}, nil)
	cs, err := client.Connect(testCtx(t, startTimeout), &mcp.CommandTransport{Command: p.cmd, TerminateDuration: exitGrace}, nil)
	if err != nil {
		t.Fatalf("starting the installed entry %s %v: %v\nstderr:\n%s", command, args, err, p.stderr)
	}
	p.cs = cs
	t.Cleanup(p.close)
	return cs
}

// waitSearch searches until want is among the names found: the upstreams
// may still be connecting when the client's first search arrives.
func waitSearch(t *testing.T, cs *mcp.ClientSession, query, want string) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	for {
		out := text(callTool(t, cs, "search_tools", map[string]any{"query": query, "detail": "name"}))
		if slices.Contains(qualifiedNames(out), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("search_tools %q does not find %s:\n%s", query, want, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
