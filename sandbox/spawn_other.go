//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// Outside Linux there are no namespaces, Landlock or seccomp: a child runs
// as a plain process with rlimits, and only Lua (which has no file,
// process or network API) runs under the default sandbox.require.

type initConn struct{}

func (p *procRunner) sandboxCmd(*exec.Cmd, string, Limits) (*initConn, error) { return nil, nil }

func (p *procRunner) sandboxed() bool { return false }

func (*initConn) begin(int, []*os.File) error             { return nil }
func (*initConn) settled() <-chan struct{}                { return nil }
func (*initConn) killTasks()                              {}
func (*initConn) stopTasks()                              {}
func (*initConn) ended() bool                             { return false }
func (*initConn) quiet(int) bool                          { return true }
func (*initConn) snapshot()                               {}
func (*initConn) usage() (exitUsage, bool)                { return exitUsage{}, false }
func (*initConn) finish()                                 {}
func (*initConn) release()                                {}
func (*initConn) innerStatus() (syscall.WaitStatus, bool) { return 0, false }
func (*initConn) explain(Limits) *ScriptError             { return nil }
func (*initConn) note(*ScriptError, Limits)               {}
func (*initConn) files(*exec.Cmd) []*os.File              { return nil }

// MountWorkspace is Linux-only: elsewhere a workspace is bounded per file.
func MountWorkspace(string, int64) error {
	return fmt.Errorf("sandbox: a bounded workspace needs Linux")
}

// UnmountWorkspace does nothing outside Linux: no workspace is mounted.
func UnmountWorkspace(string) error { return nil }

func detectLayers() Layers {
	return Layers{Why: []string{fmt.Sprintf("%s has no namespaces, Landlock or seccomp: Lua only", runtime.GOOS)}}
}

func initMain() int {
	fmt.Fprintf(os.Stderr, "toolfold: %s: the sandbox init runs on Linux only\n", InitArg)
	return 125
}

func installNoProcs() error { return fmt.Errorf("no seccomp on %s", runtime.GOOS) }

// seccompAvailable is false: there is no seccomp outside Linux.
const seccompAvailable = false

// selfExeLink: no /proc; the running binary is opened by its path.
const selfExeLink = ""

// fdExecPath: without /proc/self/fd a child is started from the path.
func fdExecPath(_ int, path string) string { return path }
