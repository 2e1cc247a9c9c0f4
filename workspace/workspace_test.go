package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func setVar[T any](t *testing.T, v *T, val T) {
	old := *v
	*v = val
	t.Cleanup(func() { *v = old })
}

func waitGone(t *testing.T, dir string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
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

func TestWorkspaceUsageDoesNotFollowSymlinks(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	os.WriteFile(big, make([]byte, 1<<20), 0o600)
	dir := t.TempDir()
	os.Symlink(big, filepath.Join(dir, "link"))
	os.Symlink(filepath.Dir(big), filepath.Join(dir, "dirlink"))
	os.WriteFile(filepath.Join(dir, "small"), []byte("x"), 0o600)
	if n := usage(dir, 1<<30); n != 3*workspaceBlock {
		t.Errorf("usage = %d, want 3 entries of %d", n, workspaceBlock)
	}
	if n := usage(dir, 1); n != workspaceBlock {
		t.Errorf("usage stopping at 1 = %d, want it to stop after the first entry", n)
	}
}

func TestWorkspacesRemovedAtClose(t *testing.T) {
	w := New(nil)
	o := NewOwner(context.Background(), false)
	dir, err := w.Get(o)
	if err != nil {
		t.Fatal(err)
	}
	locked := filepath.Join(dir, "locked")
	os.Mkdir(locked, 0o700)
	os.WriteFile(filepath.Join(locked, "f"), nil, 0o600)
	os.Chmod(locked, 0o500)
	w.Release(o)
	w.Close()
	if _, err := os.Lstat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Errorf("workspaces root still there after close: %v", err)
	}
	if _, err := w.Get(NewOwner(context.Background(), false)); err == nil {
		t.Error("get after close succeeded")
	}
}

// TestWorkspaceMountHooks: a workspace is mounted when made and unmounted
// before it is removed, at session end and at close.
func TestWorkspaceMountHooks(t *testing.T) {
	w := New(nil)
	var mu sync.Mutex
	var events []string
	record := func(what string) func(string) error {
		return func(dir string) error {
			mu.Lock()
			defer mu.Unlock()
			_, err := os.Lstat(dir)
			events = append(events, fmt.Sprintf("%s %s exists=%v", what, filepath.Base(dir), err == nil))
			return nil
		}
	}
	w.mount, w.unmount = record("mount"), record("unmount")
	var owners []*Owner
	for range 2 {
		o := NewOwner(context.Background(), false)
		if _, err := w.Get(o); err != nil {
			t.Fatal(err)
		}
		owners = append(owners, o)
	}
	first := w.Dir(owners[0])
	w.Release(owners[0]) // the first session ends
	waitGone(t, first)
	w.Release(owners[1]) // the proxy closes: its sessions end, then the set
	w.Close()
	want := []string{"mount session-1 exists=true", "mount session-2 exists=true",
		"unmount session-1 exists=true", "unmount session-2 exists=true"}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(events, "; ") != strings.Join(want, "; ") {
		t.Errorf("events = %q, want %q", events, want)
	}
}

// TestRemoveTreeNeverFollowsALink: a workspace directory swapped for a
// symlink to a directory outside, between the walk that found it and
// the chmod that makes it writable, leaves the outside directory and its
// mode as they were; the workspace is removed all the same.
func TestRemoveTreeNeverFollowsALink(t *testing.T) {
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(ws, "a", "b"), filepath.Join(ws, "locked"), outside} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(ws, "locked", "f"), []byte("x"), 0o600)
	os.Chmod(filepath.Join(ws, "locked"), 0o500)
	os.Chmod(outside, 0)
	t.Cleanup(func() { os.Chmod(outside, 0o700) })
	setVar(t, &unlockHook, func(root, name string) {
		if name == "a" { // the race, won every time: a is now a link out
			os.RemoveAll(filepath.Join(root, "a"))
			os.Symlink(outside, filepath.Join(root, "a"))
		}
	})
	r, err := os.OpenRoot(ws)
	if err != nil {
		t.Fatal(err)
	}
	unlockTree(r)
	r.Close()
	if err := removeTree(ws); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(outside); err != nil || fi.Mode().Perm() != 0 || !fi.IsDir() {
		t.Fatalf("the directory outside: %v, %v; want it untouched, mode 0", fi.Mode(), err)
	}
	os.Chmod(outside, 0o700)
	if _, err := os.Stat(filepath.Join(outside, "keep")); err != nil {
		t.Errorf("the file outside: %v", err)
	}
	if _, err := os.Lstat(ws); !os.IsNotExist(err) {
		t.Errorf("the workspace is still there: %v", err)
	}
}
