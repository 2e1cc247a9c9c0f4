//go:build !linux

package sandbox

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// applyRlimits does nothing outside Linux: there is no prlimit to set
// another process's limits. The wall timeout, the output and bridge caps
// and the child's own memory guard still hold.
func applyRlimits(int, Limits, bool) error { return nil }

// childSysProcAttr is a child's: its own process group, one group to kill.
func childSysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// waitNoReap returns when pid has exited, without reaping it: a kqueue
// EVFILT_PROC NOTE_EXIT event fires at exit and leaves the zombie in place.
func waitNoReap(pid int) {
	kq, err := unix.Kqueue()
	if err != nil {
		return
	}
	defer unix.Close(kq)
	ev := []unix.Kevent_t{{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	out := make([]unix.Kevent_t, 1)
	for {
		_, err := unix.Kevent(kq, ev, out, nil)
		if err != unix.EINTR {
			return // fired, or the process is already gone (ESRCH)
		}
	}
}
