package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/toolfold/toolfold/internal/fsown"
)

// Persisted workspaces (sandbox.workspace_dir). The stdio session's
// workspace is DIR/stdio, so a script's state and exported files carry over
// to toolfold's next start; toolfold never removes it, and it is still
// bounded by sandbox.workspace_size while used. HTTP sessions keep
// temporary workspaces: their ids are random, so a kept directory could
// never be found again, and any client able to open sessions could fill
// the disk with them.
//
// A workspace is locked (flock on DIR/.<key>.lock) while a session uses
// it: a second toolfold on the same config (two editor windows) gets
// stdio-2, stdio-3, ... rather than sharing files with the first. DIR must
// be toolfold's own: owned by its user and writable by nobody else, since
// whoever can write DIR could swap a workspace for a link between runs.

// maxWorkspaceTries bounds the search for an unlocked stdio workspace.
const maxWorkspaceTries = 32

// persisted opens (creating if needed) and locks the stdio session's
// workspace under w.persist. Called with w.mu held.
func (w *Set) persisted() (string, *os.File, error) {
	if err := os.MkdirAll(w.persist, 0o700); err != nil {
		return "", nil, fmt.Errorf("create sandbox.workspace_dir: %w (make it writable, or remove the key)", err)
	}
	if err := ownDir(w.persist); err != nil {
		return "", nil, err
	}
	const base = "stdio"
	for i := 1; i <= maxWorkspaceTries; i++ {
		key := base
		if i > 1 {
			key += "-" + strconv.Itoa(i)
		}
		lock, err := os.OpenFile(filepath.Join(w.persist, "."+key+".lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return "", nil, fmt.Errorf("lock a workspace in sandbox.workspace_dir: %w (if %s is a link or not a file, move it away)",
				err, filepath.Join(w.persist, "."+key+".lock"))
		}
		if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			lock.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				continue // another toolfold's session uses it
			}
			return "", nil, fmt.Errorf("lock a workspace in sandbox.workspace_dir: %w", err)
		}
		dir := filepath.Join(w.persist, key)
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
			lock.Close()
			return "", nil, fmt.Errorf("create a session workspace in sandbox.workspace_dir: %w", err)
		}
		// Never follow a link planted in place of the workspace.
		if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
			lock.Close()
			return "", nil, fmt.Errorf("%s is not a directory (a symlink or a file is there); move it away or choose another sandbox.workspace_dir", dir)
		}
		if i > 1 {
			w.log.Warn("workspace in use by another toolfold; this session uses another", "dir", dir)
		}
		return dir, lock, nil
	}
	return "", nil, fmt.Errorf("the first %d workspaces in sandbox.workspace_dir are all in use by other toolfold processes", maxWorkspaceTries)
}

// ownDir checks that dir is a real directory of toolfold's user that no
// one else can write.
func ownDir(dir string) error { return fsown.CheckDir("sandbox.workspace_dir", dir) }

// isPersisted reports whether dir is a workspace under sandbox.workspace_dir.
func (w *Set) isPersisted(dir string) bool {
	return w.persist != "" && filepath.Dir(dir) == w.persist
}
