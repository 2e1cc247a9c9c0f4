package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The sandbox init: the re-executed toolfold binary, started by the parent
// as PID 1 of new user, mount, pid, net, ipc and uts namespaces. It reads
// the initSpec from fd 5, builds the file system (buildRoot), then on one
// locked OS thread joins the run's cgroups (v1: that thread alone, through
// the "tasks" files the parent passed; v2: the parent moved the whole init
// before sending the spec), enters a new cgroup namespace, drops the capability
// bounding set and ambient set, sets no_new_privs, applies Landlock and
// seccomp, and forks the inner command from that thread as the sandbox
// uid: the thread's restrictions pass to the child, and the thread dies
// with its goroutine. The init then points its own copies of fds 1-4 at
// /dev/null, reaps every process that ends in the namespace until the
// inner command exits, kills and reaps whatever is left (a daemon, a fork
// bomb: killAll), writes the command's wait status to fd 5 and exits. The
// parent answers the run on that status; should the init die before, the
// kernel kills what is left in the PID namespace with it.
//
// The init ignores the signals a script could send it (a script cannot: it
// runs as another uid, and Landlock scopes signals), and the parent kills
// it, and so the namespace, on timeout.

// initMain runs the init and returns its exit status.
func initMain() int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2)
	sock := os.NewFile(initSpecFD, "spec")
	if sock == nil {
		fmt.Fprintf(os.Stderr, "toolfold: %s: no spec on fd %d (this mode is started by toolfold itself)\n", InitArg, initSpecFD)
		return 125
	}
	// The script gets 0-4 only: not the spec socket, nor a descriptor the
	// proxy inherited without close-on-exec and passed on.
	unix.CloseRange(initSpecFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	report := func(st initStatus) { json.NewEncoder(sock).Encode(st) }
	data, err := io.ReadAll(io.LimitReader(sock, 1<<20))
	var s initSpec
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		report(initStatus{Setup: fmt.Sprintf("read spec: %v", err)})
		return 125
	}
	proc, err := buildRoot(&s)
	if err != nil {
		report(initStatus{Setup: err.Error()})
		fmt.Fprintf(os.Stderr, "toolfold sandbox: setup: %v\n", err)
		return 125
	}
	unix.Sethostname([]byte("sandbox"))
	unix.Setdomainname([]byte("sandbox"))
	// Nested user namespaces: none (seccomp denies them too).
	os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0)

	if s.Probe {
		l := Layers{Namespaces: true, Filesystem: true, Proc: proc}
		_, err := onLockedThread(func() (int, error) {
			if err := harden(&s, &l); err != nil || !l.Seccomp {
				return 0, err
			}
			// Last, and from the thread with the init's filter, as a Lua
			// child calls it from threads that all have it (TSYNC wants
			// every thread's filter to be one the caller's builds on): it
			// refuses this process any fork from now on.
			if err := installNoProcs(); err != nil {
				l.Why = append(l.Why, "the Lua child's own filter: "+err.Error())
			} else {
				l.NoProcs = true
			}
			return 0, nil
		})
		if err != nil {
			l.Why = append(l.Why, err.Error())
		}
		report(initStatus{Layers: &l})
		return 0
	}
	if len(s.Argv) == 0 {
		report(initStatus{Setup: "no command to run"})
		return 125
	}
	argv0, err := innerPath(&s, proc)
	if err != nil {
		report(initStatus{Setup: err.Error()})
		return 125
	}
	pid, err := onLockedThread(func() (int, error) {
		if err := joinCgroups(s.CgroupFDs); err != nil {
			return 0, err
		}
		if err := harden(&s, nil); err != nil {
			return 0, err
		}
		var cred *syscall.Credential
		if s.UID != 0 {
			cred = &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID), Groups: []uint32{}}
		}
		return syscall.ForkExec(argv0, s.Argv, &syscall.ProcAttr{
			Dir:   SandboxWorkspace,
			Env:   s.Env,
			Files: []uintptr{0, 1, 2, 3, 4},
			// No Pdeathsig: it fires when the forking thread exits (at
			// once); the init's death kills the namespace anyway.
			Sys: &syscall.SysProcAttr{Credential: cred},
		})
	})
	if err != nil {
		report(initStatus{Setup: fmt.Sprintf("start %s: %v", s.Argv[0], err)})
		fmt.Fprintf(os.Stderr, "toolfold sandbox: start %s: %v\n", s.Argv[0], err)
		return 126
	}
	// The script's pipes are its own: holding them would keep the parent
	// from reading their end until this process is gone.
	releaseStdio()
	ws, ru := reap(pid)
	if !killAll() {
		return 125 // no answer: the parent waits for this process's exit, which kills the rest
	}
	// Every process of the run has ended: the parent answers the model
	// now, while this process's exit tears the namespaces down.
	report(initStatus{WaitStatus: uint32(ws), CPUNanos: ru.Utime.Nano() + ru.Stime.Nano(), MaxRSSKiB: ru.Maxrss})
	time.Sleep(time.Duration(s.LingerMillis) * time.Millisecond) // tests only
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// innerPath is the file the inner command is started from. A command that
// re-executes toolfold (Lua) starts from this init's own executable, the
// file the parent vetted (/proc/self/exe of the forked child), never from
// a path a file could have been swapped in at; without a /proc, from
// SandboxExe when it was bound from that same file.
func innerPath(s *initSpec, proc bool) (string, error) {
	switch {
	case s.Exe == "":
		return s.Argv[0], nil
	case proc:
		return "/proc/self/exe", nil
	case s.exeBound:
		return SandboxExe, nil
	}
	return "", fmt.Errorf("%s is no longer the binary toolfold started with, and without a /proc the sandbox cannot start that one; restart toolfold", s.Exe)
}

// joinCgroups moves the calling OS thread (not the whole init) into the
// run's cgroup v1 hierarchies through the "tasks" files the parent opened:
// a thread moving itself skips the kernel's thread-group lock, whose RCU
// grace period made the parent's write of the init's pid to cgroup.procs
// cost 4-18 ms. A child forked from the thread is born in its cgroups.
func joinCgroups(fds []int) error {
	for _, fd := range fds {
		if _, err := unix.Write(fd, []byte("0")); err != nil {
			return fmt.Errorf("join the run's cgroup: %w", err)
		}
		unix.Close(fd)
	}
	return nil
}

// onLockedThread runs f on a fresh OS thread that is never handed back to
// the Go scheduler: whatever f restricts dies with the thread.
func onLockedThread(f func() (int, error)) (int, error) {
	type result struct {
		n   int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // no Unlock: the thread exits with this goroutine
		n, err := f()
		ch <- result{n, err}
	}()
	r := <-ch
	return r.n, r.err
}

// harden restricts the calling OS thread: new cgroup namespace, empty
// capability bounding and ambient sets, no_new_privs, Landlock, seccomp.
// With l (probe mode) it records which layers worked and goes on; without,
// any failure of a layer the spec asks for is an error.
func harden(s *initSpec, l *Layers) error {
	var errs []error
	if err := unix.Unshare(unix.CLONE_NEWCGROUP); err != nil && l != nil {
		l.Why = append(l.Why, fmt.Sprintf("cgroup namespace: %v", err)) // cosmetic: there is no /sys
	}
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); errors.Is(err, unix.EINVAL) {
			break // past the last capability
		} else if err != nil {
			return fmt.Errorf("drop capability %d from the bounding set: %w", c, err)
		}
	}
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if abi := landlockABI(); (s.Landlock || l != nil) && abi > 0 {
		if err := applyLandlock(abi, s.ReadOnly, s.Exe != ""); err != nil {
			errs = append(errs, err)
		} else if l != nil {
			l.Landlock = abi
		}
	} else if s.Landlock {
		errs = append(errs, errors.New("landlock: not available"))
	}
	if s.Seccomp || l != nil {
		if err := installSeccomp(); err != nil {
			errs = append(errs, err)
		} else if l != nil {
			l.Seccomp = true
		}
	}
	if l != nil {
		for _, e := range errs {
			l.Why = append(l.Why, e.Error())
		}
		return nil
	}
	return errors.Join(errs...)
}

// reap waits for every process that ends in the namespace (the init is
// their reaper) and returns when pid has ended, with its status and
// resource usage.
func reap(pid int) (syscall.WaitStatus, syscall.Rusage) {
	for {
		var ws syscall.WaitStatus
		var ru syscall.Rusage
		got, err := syscall.Wait4(-1, &ws, 0, &ru)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil || got == pid {
			return ws, ru
		}
	}
}

// killAll kills every other process of the PID namespace (a daemon, what
// is left of a fork bomb) and reaps it, until none is left: kill(-1)
// reaches every process the init may signal, zombies included, and fails
// with ESRCH only when there is none. A process forked while the signal
// was sent is caught by the next round. Each round reaps every child that
// has ended, then, if none had, waits for one. It returns false if wait4
// fails in a way it cannot explain: then nothing is certain.
func killAll() bool {
	for {
		if err := unix.Kill(-1, unix.SIGKILL); errors.Is(err, unix.ESRCH) {
			return true
		}
		n, err := reapEnded()
		if err != nil {
			return false
		}
		if n > 0 {
			continue
		}
		var ws syscall.WaitStatus
		_, err = syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			// Alive but not (yet) ours: a process whose parent was just
			// killed is being reparented. The parent's timeout bounds this.
			time.Sleep(time.Millisecond)
		case err != nil && !errors.Is(err, syscall.EINTR):
			return false
		}
	}
}

// reapEnded reaps every child that has ended, without waiting.
func reapEnded() (int, error) {
	for n := 0; ; {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case errors.Is(err, syscall.ECHILD), err == nil && pid <= 0:
			return n, nil
		case err != nil:
			return n, err
		default:
			n++
		}
	}
}

// releaseStdio points the init's descriptors 1-4, which are the script's
// output and bridge pipes, at /dev/null: once the script's processes are
// gone, the parent reads the end of each pipe without waiting for the
// init's exit.
func releaseStdio() {
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		for fd := 1; fd <= 4; fd++ {
			unix.Close(fd)
		}
		return
	}
	for fd := 1; fd <= 4; fd++ {
		unix.Dup3(null, fd, 0)
	}
	unix.Close(null)
}
