package workspace

import (
	"os"
	"runtime"

	"github.com/toolfold/toolfold/sandbox"
)

// Bound says how a session's workspace is held to
// sandbox.workspace_size: while writing, by a size- and inode-limited
// tmpfs mounted on it (Linux, toolfold running as root), where a write
// past the limit fails at once with "no space left on device"; else only
// by measuring it every 500 ms while a script runs and after each run, so
// a fast writer may overshoot until the next measure (it is then stopped
// and the workspace emptied). why says which, for the log and check.
func Bound() (mounted bool, why string) {
	switch {
	case runtime.GOOS != "linux":
		return false, "measured every 500 ms (a tmpfs per workspace needs Linux)"
	case os.Geteuid() != 0:
		return false, "measured every 500 ms (a tmpfs per workspace needs toolfold to run as root); a fast writer may overshoot until the next measure"
	}
	return true, "bounded while writing by a tmpfs per workspace"
}

// Mount mounts a tmpfs of the workspace size on each new temporary
// workspace when mounted (Bound's verdict, passed in so that a test can
// choose the fallback); a host that refuses the first mount (no
// CAP_SYS_ADMIN in a container) falls back to measuring, logged once
// (Set.temporary). Otherwise why is logged. The stdio session's persisted
// workspace is a directory of the user's, never mounted over.
func (w *Set) Mount(mounted bool, why string) {
	if !mounted {
		w.log.Info("session workspaces: " + why)
		return
	}
	size := w.limit
	w.mount = func(dir string) error { return sandbox.MountWorkspace(dir, size) }
	w.unmount = sandbox.UnmountWorkspace
}
