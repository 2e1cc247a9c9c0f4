package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestKilledToolfoldLeftoversSwept: a toolfold killed with SIGKILL cannot
// remove its servers/ trees (in /dev/shm: memory the machine gets back only
// at reboot); the next toolfold to start removes them, and leaves a running
// one's alone.
func TestKilledToolfoldLeftoversSwept(t *testing.T) {
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}))
	killed, _ := startHTTPProc(t, cfg)
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
	next, _ := startHTTPProc(t, cfg)
	_ = next
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

// codeTrees lists the /dev/shm tree directories of the toolfold with pid.
func codeTrees(pid int) []string {
	m, _ := filepath.Glob("/dev/shm/toolfold-code-" + strconv.Itoa(pid) + "-*")
	return m
}
