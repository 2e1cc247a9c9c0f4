package proxy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Persisted workspaces (sandbox.workspace_dir). A session's workspace is
// DIR/<key>: "stdio" for the stdio session, so a script's state carries over
// to toolfold's next start; the Mcp-Session-Id over HTTP, so an ended
// session's files stay for the user to collect. They are never removed by
// toolfold, and still bounded by sandbox.workspace_size while used.
//
// A workspace is locked (flock on DIR/.<key>.lock) while a session uses
// it: a second toolfold on the same config (two editor windows) gets
// stdio-2, stdio-3, ... rather than sharing files with the first.

// maxWorkspaceTries bounds the search for an unlocked stdio workspace.
const maxWorkspaceTries = 32

// persisted opens (creating if needed) and locks the workspace of ss under
// w.persist. Called with w.mu held.
func (w *workspaces) persisted(ss *mcp.ServerSession) (string, *os.File, error) {
	if err := os.MkdirAll(w.persist, 0o700); err != nil {
		return "", nil, fmt.Errorf("create sandbox.workspace_dir: %w (make it writable, or remove the key)", err)
	}
	base := workspaceKey(ss.ID())
	for i := 1; i <= maxWorkspaceTries; i++ {
		key := base
		if i > 1 {
			key += "-" + strconv.Itoa(i)
		}
		lock, err := os.OpenFile(filepath.Join(w.persist, "."+key+".lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return "", nil, fmt.Errorf("lock a workspace in sandbox.workspace_dir: %w", err)
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
	return "", nil, fmt.Errorf("the first %d workspaces for %q in sandbox.workspace_dir are all in use by other toolfold processes", maxWorkspaceTries, base)
}

// workspaceKey is a session's directory name: "stdio" for the session
// without an id, else the id with anything but [A-Za-z0-9_-] replaced.
func workspaceKey(id string) string {
	if id == "" {
		return "stdio"
	}
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	return "session-" + string(b)
}
