package upstream

import "syscall"

// upstreamProcAttr starts a stdio upstream in its own process group (so
// its children can be signalled together) and has the kernel kill it if
// toolfold dies without closing it.
func upstreamProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
