package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// proc is one process seen in /proc. start (clock ticks since boot) tells a process
// from a later one that reused its pid.
type proc struct {
	pid, ppid int
	state     byte
	start     uint64
	cmdline   string
}

// becomeSubreaper makes this test binary the reaper of its orphaned descendants, so
// that an upstream left behind by a toolfold that exited is still found by walking
// parent links from here.
func becomeSubreaper() error {
	const prSetChildSubreaper = 36
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if errno != 0 {
		return errno
	}
	return nil
}

// readProc parses /proc/PID/stat and cmdline; ok is false if the process is gone.
func readProc(pid int) (p proc, ok bool) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return p, false
	}
	// "pid (comm) state ppid ..." and comm may hold spaces or parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return p, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return p, false
	}
	p.pid = pid
	p.state = f[0][0]
	p.ppid, _ = strconv.Atoi(f[1])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	p.cmdline = strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
	return p, true
}

func allProcs() map[int]proc {
	ents, _ := filepath.Glob("/proc/[0-9]*")
	procs := make(map[int]proc, len(ents))
	for _, e := range ents {
		pid, err := strconv.Atoi(filepath.Base(e))
		if err != nil {
			continue
		}
		if p, ok := readProc(pid); ok {
			procs[pid] = p
		}
	}
	return procs
}

// descendants lists the live (non-zombie) processes below root.
func descendants(root int) []proc {
	procs := allProcs()
	var out []proc
	for _, p := range procs {
		if p.pid == root || p.state == 'Z' {
			continue
		}
		for q, hops := p, 0; q.ppid > 1 && hops < 64; hops++ {
			if q.ppid == root {
				out = append(out, p)
				break
			}
			var ok bool
			if q, ok = procs[q.ppid]; !ok {
				break
			}
		}
	}
	return out
}

// alive reports whether p still runs: same pid, same start time, not a zombie.
func alive(p proc) bool {
	q, ok := readProc(p.pid)
	return ok && q.start == p.start && q.state != 'Z'
}

// waitGone waits up to grace for procs to end and returns those still running.
func waitGone(procs []proc, grace time.Duration) []proc {
	deadline := time.Now().Add(grace)
	for {
		var left []proc
		for _, p := range procs {
			if alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// leftoverDescendants returns this process's descendants still running after grace.
func leftoverDescendants(grace time.Duration) []proc {
	return waitGone(descendants(os.Getpid()), grace)
}

func killAll(procs []proc) {
	for _, p := range procs {
		if alive(p) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

func formatProcs(procs []proc) string {
	var b strings.Builder
	for _, p := range procs {
		fmt.Fprintf(&b, "  pid %d (parent %d): %s\n", p.pid, p.ppid, p.cmdline)
	}
	return b.String()
}

// pidAlive reports whether a process with this pid runs and is not a zombie.
func pidAlive(pid int) bool {
	p, ok := readProc(pid)
	return ok && p.state != 'Z'
}

// isZombie reports whether pid has exited but was not reaped by its parent.
func isZombie(pid int) bool {
	p, ok := readProc(pid)
	return ok && p.state == 'Z'
}

// dieWithTest makes a helper daemon get SIGKILL when the test binary dies.
func dieWithTest() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }

// unmountLeftovers detaches the mounts under dir that a killed toolfold left
// behind (its tmpfs workspaces: a crash cannot unmount them), as an operator
// would, and returns how many there were.
func unmountLeftovers(dir string) int {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) > 4 && strings.HasPrefix(f[4], dir+"/") {
			if syscall.Unmount(f[4], syscall.MNT_DETACH) == nil {
				n++
			}
		}
	}
	return n
}
