package proxy

import (
	"os"
	"runtime"

	"github.com/toolfold/toolfold/sandbox"
)

// WorkspaceBound says how a session's workspace is held to
// sandbox.workspace_size: while writing, by a size- and inode-limited
// tmpfs mounted on it (Linux, toolfold running as root), where a write
// past the limit fails at once with "no space left on device"; else only
// by measuring it every 500 ms while a script runs and after each run, so
// a fast writer may overshoot until the next measure (it is then stopped
// and the workspace emptied). why says which, for the log and check.
func WorkspaceBound() (mounted bool, why string) {
	switch {
	case runtime.GOOS != "linux":
		return false, "measured every 500 ms (a tmpfs per workspace needs Linux)"
	case os.Geteuid() != 0:
		return false, "measured every 500 ms (a tmpfs per workspace needs toolfold to run as root); a fast writer may overshoot until the next measure"
	}
	return true, "bounded while writing by a tmpfs per workspace"
}

// workspaceBound is WorkspaceBound; tests of the fallback replace it.
var workspaceBound = WorkspaceBound

// bound mounts a tmpfs of size bytes on each new temporary workspace when
// WorkspaceBound allows; a host that refuses the first mount (no
// CAP_SYS_ADMIN in a container) falls back to measuring, logged once
// (workspaces.temporary). The stdio session's persisted workspace is a
// directory of the user's, never mounted over.
func (w *workspaces) bound(size int64) {
	mounted, why := workspaceBound()
	if !mounted {
		w.log.Info("session workspaces: " + why)
		return
	}
	if size <= 0 {
		size = w.limit
	}
	w.mount = func(dir string) error { return sandbox.MountWorkspace(dir, size) }
	w.unmount = sandbox.UnmountWorkspace
}
