package proxy

import (
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/toolfold/toolfold/sandbox"
)

// TestSweepWorkspaces: the workspaces of a toolfold that no longer runs are
// unmounted (as root) and removed; this process's, another name's, and a
// malformed name's are left alone.
func TestSweepWorkspaces(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	tmp := t.TempDir()
	gone := filepath.Join(tmp, workspacesPrefix+strconv.Itoa(dead.Process.Pid)+"-1")
	ours := filepath.Join(tmp, workspacesPattern()+"2")
	other := filepath.Join(tmp, workspacesPrefix+"x-3")
	for _, d := range []string{gone, ours, other} {
		if err := os.MkdirAll(filepath.Join(d, "session-1"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	mounted := os.Getuid() == 0 && sandbox.MountWorkspace(filepath.Join(gone, "session-1"), 1<<20) == nil
	if mounted {
		t.Cleanup(func() { _ = sandbox.UnmountWorkspace(filepath.Join(gone, "session-1")) })
		if err := os.WriteFile(filepath.Join(gone, "session-1", "f"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if n := sweepWorkspaces(tmp, slog.New(slog.DiscardHandler)); n != 1 {
		t.Errorf("sweepWorkspaces removed %d directories, want 1", n)
	}
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("the killed process's workspaces are still there (mounted: %v): %v", mounted, err)
	}
	for _, d := range []string{ours, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", filepath.Base(d), err)
		}
	}
}
