package tempdir

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestSweepUnmounts: a killed toolfold leaves its session workspaces
// mounted as tmpfs; the sweep detaches them, then removes the directory.
func TestSweepUnmounts(t *testing.T) {
	parent := t.TempDir()
	dead := filepath.Join(parent, "tf-m-"+strconv.Itoa(deadPID(t))+"-1")
	mnt := filepath.Join(dead, "session 1")
	if err := os.MkdirAll(mnt, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mount("tf-test", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Skip("cannot mount a tmpfs here (needs root):", err)
	}
	t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
	if err := os.WriteFile(filepath.Join(mnt, "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n := Sweep(parent, "tf-m-"); n != 1 {
		t.Fatalf("swept %d, want 1", n)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Fatalf("the directory with a mount below it was kept: %v", err)
	}
}

func TestUnescape(t *testing.T) {
	if got := unescape(`/a\040b\134c`); got != `/a b\c` {
		t.Errorf("unescape = %q", got)
	}
}
