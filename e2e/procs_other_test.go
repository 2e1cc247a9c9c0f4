//go:build !linux

package e2e

import (
	"errors"
	"syscall"
	"time"
)

// Process checks read /proc; elsewhere they find nothing.

type proc struct {
	pid, ppid int
	cmdline   string
}

func becomeSubreaper() error                   { return errors.New("only on linux") }
func descendants(int) []proc                   { return nil }
func waitGone([]proc, time.Duration) []proc    { return nil }
func leftoverDescendants(time.Duration) []proc { return nil }
func killAll([]proc)                           {}
func formatProcs([]proc) string                { return "" }
func pidAlive(int) bool                        { return false }
func isZombie(int) bool                        { return false }
func readProc(int) (proc, bool)                { return proc{}, false }

// dieWithTest: without Pdeathsig, a daemon outlives a killed test binary.
func dieWithTest() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
func unmountLeftovers(string) int       { return 0 }
