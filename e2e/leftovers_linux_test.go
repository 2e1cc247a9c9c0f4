package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestKilledToolfoldLeftoversSwept: a toolfold killed with SIGKILL cannot
// remove its servers/ trees (in /dev/shm: memory the machine gets back only
// at reboot) nor its session workspaces (tmpfs mounts, as root); the next
// toolfold to start removes the trees, and its first workspace the
// workspaces, and leaves a running one's alone.
func TestKilledToolfoldLeftoversSwept(t *testing.T) {
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}))
	killed, url := startHTTPProc(t, cfg)
	writeInWorkspace(t, url)
	workspaces, _ := filepath.Glob(filepath.Join(killed.tmp, "toolfold-workspaces-"+strconv.Itoa(killed.cmd.Process.Pid)+"-*"))
	if len(workspaces) != 1 {
		t.Fatalf("the first toolfold's workspaces directory: %v, want one", workspaces)
	}
	trees := codeTrees(killed.cmd.Process.Pid)
	if len(trees) == 0 {
		t.Skip("no servers/ tree directory in /dev/shm (no mount namespaces or no /dev/shm here)")
	}
	live, _ := startHTTPProc(t, cfg)
	liveTrees := codeTrees(live.cmd.Process.Pid)
	if err := killed.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for _, d := range trees {
		if _, err := os.Stat(d); err != nil {
			t.Fatalf("the killed toolfold's tree %s is already gone (%v): the test proves nothing", d, err)
		}
	}
	_, nextURL := startHTTPProc(t, cfg, "TMPDIR="+killed.tmp)
	writeInWorkspace(t, nextURL)
	if _, err := os.Stat(workspaces[0]); !os.IsNotExist(err) {
		t.Errorf("the next toolfold's first workspace kept the killed one's workspaces %s (%v)", workspaces[0], err)
	}
	for _, d := range trees {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("the next start kept the killed toolfold's servers/ tree %s (%v)", d, err)
		}
	}
	for _, d := range liveTrees {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("the next start removed a running toolfold's tree %s: %v", d, err)
		}
	}
}

// writeInWorkspace connects to url and runs a script that writes a file in
// its session's workspace.
func writeInWorkspace(t *testing.T, url string) {
	t.Helper()
	cs := connectHTTP(t, url)
	res := callTool(t, cs, "run_script", map[string]any{"language": "python", "code": `open("note.txt", "w").write("x")`})
	if res.IsError {
		t.Fatalf("writing in the workspace: %s", text(res))
	}
}

// codeTrees lists the /dev/shm tree directories of the toolfold with pid.
func codeTrees(pid int) []string {
	m, _ := filepath.Glob("/dev/shm/toolfold-code-" + strconv.Itoa(pid) + "-*")
	return m
}
