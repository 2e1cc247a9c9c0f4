package proxy

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/toolfold/toolfold/sandbox"
)

// workspacesPrefix names the directory that holds a process's temporary
// workspaces: toolfold-workspaces-PID-RANDOM. The pid lets a later toolfold
// find the directories of one that was killed (SIGKILL, a crash), whose
// tmpfs workspaces nothing else unmounts.
const workspacesPrefix = "toolfold-workspaces-"

// workspacesPattern is os.MkdirTemp's pattern for this process's directory.
func workspacesPattern() string {
	return workspacesPrefix + strconv.Itoa(os.Getpid()) + "-"
}

// sweepWorkspaces unmounts and removes the workspace directories in tmp
// left by toolfold processes that no longer run, owned by this user. A
// directory whose pid is alive, or that is not ours, is left alone. It
// returns how many it removed.
func sweepWorkspaces(tmp string, log *slog.Logger) int {
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		pid, ok := workspacesPid(e.Name())
		if !ok || !e.IsDir() || alive(pid) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if !ownedByUs(dir) {
			continue
		}
		if err := removeLeftover(dir); err != nil {
			log.Warn("cannot remove the workspaces of a toolfold that was killed", "dir", dir, "err", err)
			continue
		}
		n++
	}
	if n > 0 {
		log.Info("removed the workspaces of toolfold processes that were killed", "directories", n)
	}
	return n
}

// workspacesPid is the pid in a workspaces directory's name.
func workspacesPid(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, workspacesPrefix)
	if !ok {
		return 0, false
	}
	p, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(p)
	return pid, ok && err == nil && pid > 0
}

// alive reports whether a process with pid runs (or may: any answer but
// "no such process" counts as alive).
func alive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// ownedByUs reports whether dir is a directory of this process's user, not a link.
func ownedByUs(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}

// removeLeftover unmounts each session workspace under dir, then removes it.
func removeLeftover(dir string) error {
	sessions, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, s := range sessions {
		if s.IsDir() {
			if err := sandbox.UnmountWorkspace(filepath.Join(dir, s.Name())); err != nil {
				return err
			}
		}
	}
	return removeTree(dir)
}
