package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"
)

// Per-run cgroups: the parent creates one per run, moves the init into it
// before the init builds anything (so everything the script starts is in
// it), and removes it after the init is reaped. cgroup v1 (memory with
// memsw when swap is accounted, and pids hierarchies) or v2 (memory.max,
// memory.swap.max, pids.max) where writable; otherwise the rlimits alone
// bound each process, not their sum.

const cgroupRoot = "/sys/fs/cgroup"

// cgroupLayout is where this host's writable controllers are.
type cgroupLayout struct {
	v2        bool
	mem, pids string // parent directories for run cgroups, "" when unusable
}

var runSeq atomic.Int64

// detectCgroups finds writable memory and pids controllers by creating
// (and removing) a cgroup in each.
func detectCgroups() (cgroupLayout, []string) {
	var why []string
	if ctl, err := os.ReadFile(cgroupRoot + "/cgroup.controllers"); err == nil {
		l := cgroupLayout{v2: true}
		dir := cgroupRoot + "/toolfold"
		err := errors.Join(os.WriteFile(cgroupRoot+"/cgroup.subtree_control", []byte("+memory +pids"), 0),
			mkdirTry(dir), os.WriteFile(dir+"/cgroup.subtree_control", []byte("+memory +pids"), 0))
		if err == nil && bytes.Contains(ctl, []byte("memory")) {
			l.mem = dir
		}
		if err == nil && bytes.Contains(ctl, []byte("pids")) {
			l.pids = dir
		}
		if err != nil {
			why = append(why, fmt.Sprintf("cgroup v2: %v", err))
		}
		return l, why
	}
	var l cgroupLayout
	for _, c := range []struct {
		name string
		dst  *string
	}{{"memory", &l.mem}, {"pids", &l.pids}} {
		dir := filepath.Join(cgroupRoot, c.name, "toolfold")
		if err := mkdirTry(dir); err != nil {
			why = append(why, fmt.Sprintf("%s cgroup: %v", c.name, err))
			continue
		}
		*c.dst = dir
	}
	return l, why
}

// mkdirTry creates dir if needed and checks a child can be made in it. It
// also removes the empty run cgroups of toolfold processes that are gone
// (killed before they could clean up).
func mkdirTry(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	sweepStale(dir)
	probe := filepath.Join(dir, fmt.Sprintf("probe-%d", os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return err
	}
	return os.Remove(probe)
}

// sweepStale removes run-<pid>-<n> cgroups in dir whose pid is not a
// running process; rmdir refuses any that still holds a task.
func sweepStale(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		var pid, n int
		if _, err := fmt.Sscanf(e.Name(), "run-%d-%d", &pid, &n); err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// runCgroup is one run's cgroups.
type runCgroup struct {
	v2   bool
	dirs []string
	mem  string
	pids string
	// tasks is pids.max.
	tasks int
}

// newRunCgroup creates the run's cgroups with lim's bounds: memory for the
// whole run (every process's data plus the tmpfs pages of /workspace and
// /tmp) and tasks (processes and threads: Processes plus room for the Go
// init's and the Lua child's threads).
func newRunCgroup(l cgroupLayout, lim Limits) (*runCgroup, error) {
	g := &runCgroup{v2: l.v2}
	name := fmt.Sprintf("run-%d-%d", os.Getpid(), runSeq.Add(1))
	memory := strconv.FormatInt(int64(lim.dataLimit())+lim.workspaceBytes()+lim.tmpBytes(), 10)
	tasks := strconv.Itoa(lim.Processes + 64)
	mk := func(parent string, files [][2]string) error {
		dir := filepath.Join(parent, name)
		if !g.has(dir) {
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			g.dirs = append(g.dirs, dir)
		}
		for _, f := range files {
			err := os.WriteFile(filepath.Join(dir, f[0]), []byte(f[1]), 0)
			if err != nil && !(errors.Is(err, os.ErrNotExist) && f[0] == "memory.memsw.limit_in_bytes") {
				return fmt.Errorf("write %s: %w", f[0], err)
			}
		}
		return nil
	}
	var err error
	if l.mem != "" {
		g.mem = filepath.Join(l.mem, name)
		if l.v2 {
			err = mk(l.mem, [][2]string{{"memory.max", memory}, {"memory.swap.max", "0"}})
		} else {
			err = mk(l.mem, [][2]string{{"memory.limit_in_bytes", memory}, {"memory.memsw.limit_in_bytes", memory}})
		}
	}
	if err == nil && l.pids != "" {
		g.pids, g.tasks = filepath.Join(l.pids, name), lim.Processes+64
		err = mk(l.pids, [][2]string{{"pids.max", tasks}})
	}
	if err != nil {
		g.remove()
		return nil, fmt.Errorf("sandbox: create the run's cgroup: %w", err)
	}
	return g, nil
}

func (g *runCgroup) has(dir string) bool {
	for _, d := range g.dirs {
		if d == dir {
			return true
		}
	}
	return false
}

// join moves pid into every cgroup of the run.
func (g *runCgroup) join(pid int) error {
	for _, d := range g.dirs {
		if err := os.WriteFile(d+"/cgroup.procs", []byte(strconv.Itoa(pid)), 0); err != nil {
			return fmt.Errorf("sandbox: join cgroup %s: %w", d, err)
		}
	}
	return nil
}

// killTasks sends SIGKILL to every process in the run's cgroups, which
// hold every process of the run whatever its process group or session
// (cgroup.kill on v2; each listed pid on v1, again while a pass finds one
// it had not killed, in case one forked meanwhile).
func (g *runCgroup) killTasks() {
	if g.v2 {
		for _, d := range g.dirs {
			if os.WriteFile(d+"/cgroup.kill", []byte("1"), 0) == nil {
				return
			}
		}
	}
	g.signalTasks(syscall.SIGKILL)
}

// stopTasks sends SIGSTOP to every process in the run's cgroups.
func (g *runCgroup) stopTasks() { g.signalTasks(syscall.SIGSTOP) }

// signalTasks sends sig to each process listed in the run's cgroup, again
// while a pass finds one it had not signalled.
func (g *runCgroup) signalTasks(sig syscall.Signal) {
	if len(g.dirs) == 0 {
		return
	}
	// join put every process of the run in each of its cgroups, and a
	// script cannot move out of them: one list is all of them.
	done := make(map[int]bool)
	for range 10 {
		fresh := false
		procs, err := os.ReadFile(g.dirs[0] + "/cgroup.procs")
		if err != nil {
			return
		}
		for _, f := range bytes.Fields(procs) {
			pid, err := strconv.Atoi(string(f))
			if err != nil || pid <= 0 || done[pid] {
				continue
			}
			done[pid], fresh = true, true
			syscall.Kill(pid, sig)
		}
		if !fresh {
			return
		}
	}
}

// oomKilled reports whether the memory controller killed a task of the run.
func (g *runCgroup) oomKilled() bool {
	if g.mem == "" {
		return false
	}
	file := "/memory.oom_control"
	if g.v2 {
		file = "/memory.events"
	}
	data, err := os.ReadFile(g.mem + file)
	if err != nil {
		return false
	}
	for line := range bytes.Lines(data) {
		if f := bytes.Fields(line); len(f) == 2 && string(f[0]) == "oom_kill" && string(f[1]) != "0" {
			return true
		}
	}
	return false
}

// pidsHit reports whether the pids controller refused a fork in the run.
func (g *runCgroup) pidsHit() bool {
	if g.pids == "" {
		return false
	}
	data, err := os.ReadFile(g.pids + "/pids.events")
	if err != nil {
		return false
	}
	f := bytes.Fields(data)
	return len(f) == 2 && string(f[0]) == "max" && string(f[1]) != "0"
}

// remove deletes the run's cgroups once their tasks are gone (the kernel
// may take a moment after the init is reaped, more on a loaded machine).
// One that stays busy for two seconds is left for the next start's sweep.
func (g *runCgroup) remove() {
	for _, d := range g.dirs {
		delay := time.Millisecond
		for deadline := time.Now().Add(2 * time.Second); ; {
			err := os.Remove(d)
			if err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
				break
			}
			time.Sleep(delay)
			delay = min(2*delay, 50*time.Millisecond)
		}
	}
}
