package sandbox

import (
	"fmt"
	"os"
	"path/filepath"

	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock: inside the sandbox's own root, the script may read and execute
// the runtime, read /etc and /proc, read and write /workspace, /tmp and the
// /dev nodes, and nothing else; it may not bind or connect TCP sockets, send
// signals outside its domain (to the init) or reach abstract Unix sockets
// outside it. It assumes the mount namespace failed: were the script to see
// the host's file system, these rules still name only the sandbox's paths.

// The rights, with the names of x/sys/unix (which also has the syscall
// numbers and structures: no Landlock library is needed, and none with cgo
// side effects is linked).
const (
	llExecute   = unix.LANDLOCK_ACCESS_FS_EXECUTE
	llReadFile  = unix.LANDLOCK_ACCESS_FS_READ_FILE
	llReadDir   = unix.LANDLOCK_ACCESS_FS_READ_DIR
	llWriteFile = unix.LANDLOCK_ACCESS_FS_WRITE_FILE
	llMakeChar  = unix.LANDLOCK_ACCESS_FS_MAKE_CHAR
	llMakeBlock = unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK
	llRefer     = unix.LANDLOCK_ACCESS_FS_REFER
	llTruncate  = unix.LANDLOCK_ACCESS_FS_TRUNCATE
	llIoctlDev  = unix.LANDLOCK_ACCESS_FS_IOCTL_DEV
)

// landlockABI returns the kernel's Landlock ABI version, 0 when absent.
func landlockABI() int {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// landlockFS is every file-system right the given ABI handles.
func landlockFS(abi int) uint64 {
	rights := uint64(unix.LANDLOCK_ACCESS_FS_MAKE_SYM<<1 - 1) // ABI 1: execute … make_sym
	if abi >= 2 {
		rights |= llRefer
	}
	if abi >= 3 {
		rights |= llTruncate
	}
	if abi >= 5 {
		rights |= llIoctlDev
	}
	return rights
}

// applyLandlock restricts the calling OS thread (and what it forks or
// execs). no_new_privs must already be set. readOnly are paths inside the
// sandbox the script may read and execute.
func applyLandlock(abi int, readOnly []string, exe bool) error {
	handled := landlockFS(abi)
	attr := unix.LandlockRulesetAttr{Handled_access_fs: handled}
	size := unsafe.Offsetof(attr.Handled_access_net) // ABI 1-3
	if abi >= 4 {
		attr.Handled_access_net = unix.LANDLOCK_ACCESS_NET_BIND_TCP | unix.LANDLOCK_ACCESS_NET_CONNECT_TCP
		size = unsafe.Offsetof(attr.Scoped)
	}
	if abi >= 6 {
		attr.Scoped = unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL
		size = unsafe.Offsetof(attr.Quiet_access_fs)
	}
	r, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	if errno != 0 {
		return fmt.Errorf("landlock: create ruleset: %w", errno)
	}
	fd := int(r)
	defer unix.Close(fd)

	const fileRead = llExecute | llReadFile
	read := uint64(fileRead | llReadDir)
	fileRW := uint64(llReadFile|llWriteFile) | handled&llTruncate
	dirRW := handled &^ (llMakeChar | llMakeBlock | llIoctlDev)
	rules := map[string]uint64{
		"/etc": read, "/proc": read &^ llExecute, SandboxWorkspace: dirRW, "/tmp": dirRW,
		"/dev/null": fileRW, "/dev/zero": fileRW, "/dev/random": fileRW, "/dev/urandom": fileRW,
	}
	for _, p := range append(append([]string{SandboxExe}, systemPaths...), readOnly...) {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			rules[real] |= read
		}
	}
	if exe {
		// The inner command's binary, the init's own (innerPath), wherever
		// it is bound or not.
		rules["/proc/self/exe"] |= read
	}
	for path, access := range rules {
		pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			continue // not in this sandbox
		}
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			access &= fileRW | fileRead
		}
		rule := unix.LandlockPathBeneathAttr{Allowed_access: access & handled, Parent_fd: int32(pfd)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(fd), unix.LANDLOCK_RULE_PATH_BENEATH, uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
		unix.Close(pfd)
		if errno != 0 {
			return fmt.Errorf("landlock: rule for %s: %w", path, errno)
		}
	}
	// On this thread only: the caller forks the script from it.
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, uintptr(fd), 0, 0); errno != 0 {
		return fmt.Errorf("landlock: restrict: %w", errno)
	}
	return nil
}
