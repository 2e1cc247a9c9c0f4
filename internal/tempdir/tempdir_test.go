package tempdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// deadPID starts and reaps a process, so its id is (almost surely) free.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	return cmd.Process.Pid
}

func TestMakeSweepsOnlyDeadOwners(t *testing.T) {
	parent := t.TempDir()
	dead := filepath.Join(parent, "tf-x-"+strconv.Itoa(deadPID(t))+"-123")
	live := filepath.Join(parent, "tf-x-1-456") // pid 1 always runs
	other := filepath.Join(parent, "tf-y-"+strconv.Itoa(deadPID(t))+"-789")
	for _, d := range []string{dead, live, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	dir, swept, err := Make([]string{parent}, "tf-x-")
	if err != nil {
		t.Fatal(err)
	}
	if swept != 1 {
		t.Errorf("swept %d, want 1 (the dead owner's)", swept)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a dead process's directory was kept: %v", err)
	}
	for _, d := range []string{live, other, dir} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s: %v (a live owner's, another prefix's, or our own must stay)", filepath.Base(d), err)
		}
	}
	if pid, ok := ownerPID(filepath.Base(dir), "tf-x-"); !ok || pid != os.Getpid() {
		t.Errorf("made %s: owner %d %v, want this process", filepath.Base(dir), pid, ok)
	}
	// Our own directory survives a second sweep.
	if n := Sweep(parent, "tf-x-"); n != 0 {
		t.Errorf("second sweep removed %d", n)
	}
}

func TestMakeFallsBack(t *testing.T) {
	parent := t.TempDir()
	dir, _, err := Make([]string{filepath.Join(parent, "missing"), parent}, "tf-")
	if err != nil || filepath.Dir(dir) != parent {
		t.Fatalf("Make = %q, %v; want a directory in the second parent", dir, err)
	}
}

func TestOwnerPID(t *testing.T) {
	for name, want := range map[string]int{"p-12-abc": 12, "p-x-abc": 0, "p-12": 0, "q-12-a": 0, "p--1-a": 0} {
		got, _ := ownerPID(name, "p-")
		if got != want {
			t.Errorf("ownerPID(%q) = %d, want %d", name, got, want)
		}
	}
}
