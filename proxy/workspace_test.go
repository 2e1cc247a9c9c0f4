package proxy

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/workspace"
)

// pythonSession is a proxy serving Python, and a client session to it; the
// test is skipped without python3.
func pythonSession(t *testing.T, workspaceBytes int64) (*Proxy, *mcp.ClientSession) {
	t.Helper()
	py, err := sandbox.NewPython(nil)
	if err != nil {
		t.Skip(err)
	}
	cfg := testConfig()
	cfg.Sandbox.WorkspaceBytes = workspaceBytes
	return startProxyWith(t, cfg, &Options{Runners: []sandbox.Runner{py}})
}

func runPython(t *testing.T, cs *mcp.ClientSession, code string) (string, bool) {
	t.Helper()
	return callText(t, cs, "run_script", map[string]any{"code": code, "language": "python"})
}

// valueLine is the "=> value" line of a run_script answer.
func valueLine(text string) string {
	for line := range strings.Lines(text) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "=> "); ok {
			return v
		}
	}
	return ""
}

func TestWorkspacePersistsAcrossRunsAndGoesWithTheSession(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "keep.txt")
	os.WriteFile(secret, []byte("not the script's"), 0o600)

	p, cs := pythonSession(t, 0)
	text, failed := runPython(t, cs, `
import os
open("state.json", "w").write('{"n": 1}')
os.mkdir("sub")
os.symlink(`+quotePy(outside)+`, "sub/escape")
os.symlink(`+quotePy(secret)+`, "link")`)
	if failed {
		t.Fatalf("first run: %s", text)
	}
	dirs := sessionDirs(p)
	if len(dirs) != 1 {
		t.Fatalf("workspaces after one session's run: %v", dirs)
	}
	dir := dirs[0]
	if _, err := os.Stat(filepath.Join(dir, "state.json")); err != nil {
		t.Fatalf("the run's file is not in the workspace: %v", err)
	}
	text, failed = runPython(t, cs, `return open("state.json").read()`)
	if failed || valueLine(text) != `"{\"n\": 1}"` {
		t.Fatalf("second run did not see the first run's file: %s", text)
	}
	// A second session has its own workspace.
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := p.Server().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs2, err := mcp.NewClient(&mcp.Implementation{Name: "second"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ = runPython(t, cs2, `import os
return os.path.exists("state.json")`)
	if valueLine(text) != "false" || len(sessionDirs(p)) != 2 {
		t.Errorf("second session shares the first's workspace: %s, %v", text, sessionDirs(p))
	}
	cs.Close()
	waitGone(t, dir)
	if b, err := os.ReadFile(secret); err != nil || string(b) != "not the script's" {
		t.Errorf("removing the workspace followed a symlink: %v", err)
	}
	cs2.Close()
	ss.Wait()
}

// sessionDirs lists the workspaces the proxy holds.
func sessionDirs(p *Proxy) []string {
	var dirs []string
	for _, s := range p.sessions.list() {
		if d := p.workspaces.Dir(s.ws); d != "" {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

func quotePy(s string) string { return strconv.Quote(s) }

func waitGone(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		if _, err := os.Lstat(dir); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("workspace %s still exists after its session ended", dir)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// watchOnly turns off the tmpfs per workspace for the proxies the test
// makes, to test the fallback that measures workspaces (not root).
func watchOnly(t *testing.T) {
	setVar(t, &workspaceBound, func() (bool, string) { return false, "measured (test)" })
}

func TestWorkspaceLimit(t *testing.T) {
	watchOnly(t)
	_, cs := pythonSession(t, 1<<20)
	tests := []struct{ name, code string }{
		{"one big file", `open("big", "wb").write(b"x" * (2 << 20))`},
		{"many small files", "for i in range(400):\n    open(f'f{i}', 'w').close()"},
		{"keeps writing", "import time\nfor i in range(1000):\n    open(f'f{i}', 'wb').write(b'x' * 8192)\n    time.sleep(0.01)"},
	}
	for _, tt := range tests {
		text, failed := runPython(t, cs, tt.code)
		if !failed || !strings.Contains(text, "workspace grew past its 1.0 MiB limit") || !strings.Contains(text, "sandbox.workspace_size") {
			t.Errorf("%s: failed=%v %s; want the workspace limit", tt.name, failed, text)
		}
		text, failed = runPython(t, cs, `import os
return len(set(os.listdir(".")) - {"servers", "skills"})`)
		if failed || valueLine(text) != "0" {
			t.Errorf("%s: the full workspace was not emptied: %s", tt.name, text)
		}
	}
}

// TestLuaRunDoesNotMeasureTheWorkspace: Lua has no file API, so its runs
// neither watch nor measure the workspace (sandbox.Language.NoFiles); the
// next run of a language that can write files finds it over the limit.
func TestLuaRunDoesNotMeasureTheWorkspace(t *testing.T) {
	py, err := sandbox.NewPython(nil)
	if err != nil {
		t.Skip(err)
	}
	watchOnly(t)
	cfg := testConfig()
	cfg.Sandbox.WorkspaceBytes = 1 << 20
	p, cs := startProxyWith(t, cfg, &Options{Runners: []sandbox.Runner{
		sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0]}), py}})
	if text, failed := runPython(t, cs, `open("small", "w").write("x")`); failed {
		t.Fatal(text)
	}
	dirs := sessionDirs(p)
	if len(dirs) != 1 {
		t.Fatalf("workspaces %v, want the session's", dirs)
	}
	// Past the limit from outside the runs.
	if err := os.WriteFile(filepath.Join(dirs[0], "big"), make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	text, failed := callText(t, cs, "run_script", map[string]any{"code": "return 1", "language": "lua"})
	if failed || valueLine(text) != "1" {
		t.Errorf("lua run: failed=%v %s; want it to run without measuring the workspace", failed, text)
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "big")); err != nil {
		t.Errorf("the lua run emptied the workspace: %v", err)
	}
	text, failed = runPython(t, cs, "1")
	if !failed || !strings.Contains(text, "workspace grew past its 1.0 MiB limit") {
		t.Errorf("python run: failed=%v %s; want the workspace limit", failed, text)
	}
}

// TestWorkspaceEmptiedOnlyOnceItsRunsStop: a run that fills the workspace
// has it emptied, but only once the session's other run in it, still
// writing, is stopped: it ends with the workspace error instead of
// carrying on in a directory being walked.
func TestWorkspaceEmptiedOnlyOnceItsRunsStop(t *testing.T) {
	p, cs := pythonSession(t, 1<<20)
	other := make(chan string, 1)
	go func() {
		text, _ := runPython(t, cs, "import time\nopen('started', 'w').close()\nfor i in range(200):\n    open('slow', 'w').write(str(i))\n    time.sleep(0.1)\nreturn 'finished'")
		other <- text
	}()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		var dir string
		for _, s := range p.sessions.list() {
			dir = p.workspaces.Dir(s.ws)
		}
		if dir != "" && fileExists(filepath.Join(dir, "started")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first run never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	text, failed := runPython(t, cs, `open("big", "wb").write(b"x" * (2 << 20))`)
	if !failed || !strings.Contains(text, "so its files were removed") {
		t.Fatalf("the run that filled the workspace: failed=%v %s", failed, text)
	}
	if text := <-other; valueLine(text) == "finished" || !strings.Contains(text, "workspace") {
		t.Errorf("the other run was not stopped when the workspace was emptied: %s", text)
	}
}

// TestWorkspaceBoundWhileWriting: where toolfold may mount (root on
// Linux), a workspace is a tmpfs of its limit: a write past it fails at
// once, the file never holds more than the limit, and the error says what
// to do; the tmpfs goes with the session.
func TestWorkspaceBoundWhileWriting(t *testing.T) {
	if ok, why := workspace.Bound(); !ok {
		t.Skip(why)
	}
	p, cs := pythonSession(t, 1<<20)
	text, failed := runPython(t, cs, `
import os
try:
    with open("big", "wb") as f:
        for i in range(64):
            f.write(b"x" * 65536)
            f.flush()
except OSError:
    return os.path.getsize("big")
return "all written"`)
	if failed {
		t.Fatalf("run: %s", text)
	}
	if n, err := strconv.Atoi(valueLine(text)); err != nil || n > 1<<20 {
		t.Fatalf("the file holds %s; want a write refused at the 1 MiB limit", valueLine(text))
	}
	dirs := sessionDirs(p)
	if len(dirs) != 1 || !mounted(dirs[0]) {
		t.Fatalf("workspace %v is not a mount", dirs)
	}
	text, failed = runPython(t, cs, `open("more", "wb").write(b"x" * (2 << 20))`)
	if !failed || !strings.Contains(text, "No space left") || !strings.Contains(text, "sandbox.workspace_size") {
		t.Errorf("a write into the full workspace: failed=%v %s; want the error to say what to do", failed, text)
	}
	cs.Close()
	waitGone(t, dirs[0])
	if mounted(dirs[0]) {
		t.Errorf("%s is still mounted after its session ended", dirs[0])
	}
}

// mounted reports whether dir is a mount point in this process's view.
func mounted(dir string) bool {
	data, _ := os.ReadFile("/proc/self/mountinfo")
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(line); len(f) > 4 && f[4] == dir {
			return true
		}
	}
	return false
}

// TestWorkspaceBudget: sandbox.workspace_budget bounds every workspace
// together: a run that takes the total past it fails saying so and its
// workspace is emptied; a run that would start with the total at the
// budget is refused before it starts.
func TestWorkspaceBudget(t *testing.T) {
	py, err := sandbox.NewPython(nil)
	if err != nil {
		t.Skip(err)
	}
	cfg := testConfig()
	cfg.Sandbox.WorkspaceBytes = 1 << 20
	cfg.Sandbox.WorkspaceBudget = 512 << 10
	p, cs := startProxyWith(t, cfg, &Options{Runners: []sandbox.Runner{py}})
	text, failed := runPython(t, cs, `open("a", "wb").write(b"x" * (600 << 10))`)
	if !failed || !strings.Contains(text, "sandbox.workspace_budget") || !strings.Contains(text, "files were removed") {
		t.Fatalf("a run past the budget: failed=%v %s", failed, text)
	}
	dirs := sessionDirs(p)
	if len(dirs) != 1 {
		t.Fatalf("workspaces %v", dirs)
	}
	if entries, _ := os.ReadDir(dirs[0]); len(entries) != 0 {
		t.Errorf("the workspace past the budget still holds %d files", len(entries))
	}
	// At the budget from outside the runs: the next run does not start.
	if err := os.WriteFile(filepath.Join(dirs[0], "b"), make([]byte, 600<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	text, failed = runPython(t, cs, `open("started", "w").close()`)
	if !failed || !strings.Contains(text, "reached toolfold's 512.0 KiB budget (sandbox.workspace_budget)") {
		t.Errorf("a run with the budget used up: failed=%v %s", failed, text)
	}
	if fileExists(filepath.Join(dirs[0], "started")) {
		t.Error("the run refused for the budget ran")
	}
}

// TestWorkspaceDirPersists: with sandbox.workspace_dir, a session's files
// outlive the session and the proxy, the next toolfold's stdio session
// finds them, a second session at the same time gets its own locked
// workspace, and one over its size is reported, never emptied.
func TestWorkspaceDirPersists(t *testing.T) {
	py, err := sandbox.NewPython(nil)
	if err != nil {
		t.Skip(err)
	}
	root := filepath.Join(t.TempDir(), "ws")
	start := func() (*Proxy, *mcp.ClientSession) {
		cfg := testConfig()
		cfg.Sandbox.WorkspaceDir = root
		cfg.Sandbox.WorkspaceBytes = 1 << 20
		return startProxyWith(t, cfg, &Options{Runners: []sandbox.Runner{py}})
	}

	p, cs := start()
	if text, failed := runPython(t, cs, `open("state.json", "w").write('{"n": 1}')`); failed {
		t.Fatalf("first run: %s", text)
	}
	state := filepath.Join(root, "stdio", "state.json")
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("the run's file is not in workspace_dir/stdio: %v", err)
	}

	// A second session while the first holds "stdio".
	cs2 := connectClient(t, p.Server())
	text, _ := runPython(t, cs2, `import os
open("mine", "w").write("2")
return os.path.exists("state.json")`)
	if valueLine(text) != "false" {
		t.Errorf("a second session shares the first's workspace: %s", text)
	}
	if _, err := os.Stat(filepath.Join(root, "stdio-2", "mine")); err != nil {
		t.Errorf("the second session's workspace is not workspace_dir/stdio-2: %v", err)
	}
	cs2.Close()

	// Over the limit: reported with the setting to change, nothing deleted.
	text, failed := runPython(t, cs, `open("big", "wb").write(b"x" * (2 << 20))`)
	if !failed || !strings.Contains(text, "sandbox.workspace_size") || !strings.Contains(text, "workspace_dir") {
		t.Errorf("a run that overfills a persisted workspace: failed=%v %s", failed, text)
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("an overfull persisted workspace was emptied: %v", err)
	}
	os.Remove(filepath.Join(root, "stdio", "big"))

	cs.Close()
	p.Close()
	time.Sleep(50 * time.Millisecond)
	if _, err := os.Stat(state); err != nil {
		t.Fatalf("the workspace did not outlive its session and the proxy: %v", err)
	}

	// The next toolfold finds the state, in the same directory.
	_, cs = start()
	text, failed = runPython(t, cs, `return open("state.json").read()`)
	if failed || valueLine(text) != `"{\"n\": 1}"` {
		t.Fatalf("a new proxy's session did not find the persisted state: %s", text)
	}
}
