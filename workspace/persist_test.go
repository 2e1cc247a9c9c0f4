package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
		w := New(&Options{Dir: dir})
		if _, _, err := w.persisted(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("workspace_dir %s: err = %v, want %q", filepath.Base(dir), err, want)
		}
	}
	w := New(&Options{Dir: filepath.Join(root, "fresh")})
	dir, lock, err := w.persisted()
	if err != nil || filepath.Base(dir) != "stdio" {
		t.Fatalf("a fresh workspace_dir: %v, %v", dir, err)
	}
	lock.Close()
}
