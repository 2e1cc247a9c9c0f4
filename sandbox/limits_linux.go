package sandbox

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// applyRlimits sets the child's resource limits from the parent, after Start
// and before the child is sent any code.
//
// RLIMIT_NPROC counts every thread of the child's real uid, not the child's
// own: for a proxy running as a desktop user (hundreds of threads already),
// any small value would stop the child's Go runtime from starting a thread.
// It is therefore set only in the sandbox, where the script has a uid of its
// own in a user namespace (counts are per namespace), or when the child runs
// as root, where the kernel exempts it anyway.
func applyRlimits(pid int, l Limits, sandboxed bool) error {
	cpu := l.cpuSeconds()
	set := []rlimit{
		{"RLIMIT_CPU", unix.RLIMIT_CPU, cpu, cpu + 1},
		{"RLIMIT_DATA", unix.RLIMIT_DATA, l.dataLimit(), l.dataLimit()},
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, uint64(l.OpenFiles), uint64(l.OpenFiles)},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, uint64(l.FileBytes), uint64(l.FileBytes)},
		{"RLIMIT_CORE", unix.RLIMIT_CORE, 0, 0},
	}
	if sandboxed || os.Geteuid() == 0 {
		set = append(set, rlimit{"RLIMIT_NPROC", unix.RLIMIT_NPROC, uint64(l.Processes), uint64(l.Processes)})
	}
	for _, s := range set {
		rl := unix.Rlimit{Cur: s.cur, Max: s.max}
		if err := unix.Prlimit(pid, s.res, &rl, nil); err != nil {
			return fmt.Errorf("sandbox: set %s of child %d: %w", s.name, pid, err)
		}
	}
	return nil
}

type rlimit struct {
	name     string
	res      int
	cur, max uint64
}

// childSysProcAttr is a child's: its own process group (one group to
// kill) and SIGKILL when the proxy dies.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// waitNoReap returns when pid has exited, without reaping it: until it is
// reaped its pid, and so its process group id, cannot be reused, which
// keeps kill(-pid) safe.
func waitNoReap(pid int) {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, unix.EINTR) {
			return
		}
	}
}
