//go:build !linux

package upstream

import "syscall"

// upstreamProcAttr starts a stdio upstream in its own process group. There
// is no parent-death signal outside Linux: an upstream outlives a toolfold
// killed with SIGKILL until it notices its stdin close, as MCP stdio
// servers do.
func upstreamProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
