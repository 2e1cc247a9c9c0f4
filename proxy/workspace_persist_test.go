package proxy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/sandbox"
)

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

// TestWorkspaceDirMustBeToolfolds: a workspace_dir others can write, or a
// link, is refused with what to do.
func TestWorkspaceDirMustBeToolfolds(t *testing.T) {
	root := t.TempDir()
	open := filepath.Join(root, "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	link := filepath.Join(root, "link")
	os.Symlink(root, link)
	for dir, want := range map[string]string{open: "chmod go-w", link: "not a directory"} {
		w := newWorkspaces(0, dir, nil)
		if _, _, err := w.persisted(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("workspace_dir %s: err = %v, want %q", filepath.Base(dir), err, want)
		}
	}
	w := newWorkspaces(0, filepath.Join(root, "fresh"), nil)
	dir, lock, err := w.persisted()
	if err != nil || filepath.Base(dir) != "stdio" {
		t.Fatalf("a fresh workspace_dir: %v, %v", dir, err)
	}
	lock.Close()
}
