// Package tempdir makes the temporary directories a toolfold process owns,
// named with its process id, and removes the ones a process that died
// without cleaning up (killed, crashed) left behind: a killed toolfold
// would otherwise leave its servers/ trees in /dev/shm, memory the machine
// gets back only at reboot, and its session workspaces with their tmpfs
// mounts.
//
// A directory is swept only when its name carries a process id that is
// not running. A process id reused by another process keeps its
// directory until that process ends: the safe way to be wrong.
package tempdir

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Make creates a directory named prefix<pid>-<random> in the first of
// parents that takes it ("" is os.TempDir()), after sweeping the
// directories with the same prefix that dead processes left there. It
// returns the directory and the number of stale ones removed.
func Make(parents []string, prefix string) (dir string, swept int, err error) {
	if len(parents) == 0 {
		parents = []string{""}
	}
	for _, parent := range parents {
		swept += Sweep(parent, prefix)
		dir, err = os.MkdirTemp(parent, prefix+strconv.Itoa(os.Getpid())+"-")
		if err == nil {
			return dir, swept, nil
		}
	}
	return "", swept, err
}

// Sweep removes the directories in parent ("" is os.TempDir()) named
// prefix<pid>-… whose process is not running, unmounting any mount below
// them first. It returns how many it removed.
func Sweep(parent, prefix string) int {
	if parent == "" {
		parent = os.TempDir()
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		pid, ok := ownerPID(e.Name(), prefix)
		if !ok || !e.IsDir() || pid == os.Getpid() || running(pid) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		unmountBelow(dir)
		if os.RemoveAll(dir) == nil {
			n++
		}
	}
	return n
}

// ownerPID reads the process id from a name made by Make.
func ownerPID(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// running reports whether a process with pid exists (one we may not
// signal exists too).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}
