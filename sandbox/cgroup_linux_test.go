package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCgroupSweep: the empty run cgroup of a toolfold that died before
// cleaning up is removed by the next start's detection.
func TestCgroupSweep(t *testing.T) {
	l, _ := detectCgroups()
	if l.pids == "" {
		t.Skip("no writable pids cgroup")
	}
	stale := filepath.Join(l.pids, "run-999999999-1") // above pid_max: never a live process
	if err := os.Mkdir(stale, 0o755); err != nil {
		t.Fatal(err)
	}
	detectCgroups()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		os.Remove(stale)
		t.Errorf("stale cgroup %s not removed: %v", stale, err)
	}
}
