package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The sandbox's file system, built by the init inside its new mount
// namespace:
//
//	/            tmpfs, read-only once built
//	/etc         passwd, group, hosts, resolv.conf (empty), nsswitch.conf; ld.so.cache bound
//	/usr, /lib…  read-only binds of the host's (systemPaths), links recreated as links
//	/toolfold    the toolfold binary, read-only
//	…            the interpreter's runtime (initSpec.ReadOnly), read-only
//	/dev         null, zero, random, urandom (host nodes bound), fd, stdin/out/err links
//	/proc        a fresh proc of the run's PID namespace, hidepid=invisible
//	/tmp         private tmpfs, size and inode limited
//	/workspace   private tmpfs, size and inode limited (or the given host directory)
//	/workspace/servers, /workspace/skills  the code API (initSpec.Tree), read-only
//
// No /sys, no host /home, /root, /etc/shadow or sockets. Every source is
// opened (O_PATH) before the new root is mounted and bound through
// /proc/self/fd, so no later mount can redirect it.

// newRootDir is where the new root tmpfs is mounted before pivot_root: /tmp
// of the init's private copy of the host's mounts (never the host's /tmp).
const newRootDir = "/tmp"

// buildRoot builds the sandbox's root and pivots into it. It returns
// whether a fresh /proc could be mounted.
func buildRoot(s *initSpec) (proc bool, err error) {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return false, fmt.Errorf("make mounts private: %w", err)
	}
	type source struct {
		host, dst string
		fd        int
		link      string // a symbolic link to recreate instead of binding
		rw, dir   bool
	}
	var srcs []source
	seen := map[string]bool{} // a destination is bound once: python3 and python3.11 resolve to one file
	add := func(host, dst string, rw, optional bool) error {
		if seen[dst] {
			return nil
		}
		seen[dst] = true
		if fi, err := os.Lstat(host); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			target, err := os.Readlink(host)
			if err != nil {
				return err
			}
			srcs = append(srcs, source{host: host, dst: dst, link: target, fd: -1})
			return nil
		}
		fd, err := unix.Open(host, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if optional && errors.Is(err, unix.ENOENT) {
				return nil
			}
			return fmt.Errorf("open %s: %w", host, err)
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			return err
		}
		srcs = append(srcs, source{host: host, dst: dst, fd: fd, rw: rw, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR})
		return nil
	}
	for _, p := range systemPaths {
		if err := add(p, p, false, true); err != nil {
			return false, err
		}
	}
	for _, p := range s.ReadOnly {
		if !filepath.IsAbs(p) {
			return false, fmt.Errorf("read-only path %q is not absolute", p)
		}
		real, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // an optional directory (a site-packages) that is not there
		} else if err != nil {
			return false, fmt.Errorf("read-only path: %w", err)
		}
		if underRuntime(real) {
			continue // already bound with /usr
		}
		if real != p && !underRuntime(p) {
			// The command may name the link (pyenv's bin/python3 →
			// python3.11): recreate it beside its target.
			if err := add(p, p, false, false); err != nil {
				return false, err
			}
		}
		if err := add(real, real, false, false); err != nil {
			return false, err
		}
	}
	if s.Exe != "" {
		// Bound only while the path still names the file the parent
		// vetted and started this init from (on fd ExeFD): a file swapped
		// in since is never bound, and the child starts from this
		// process's own executable (initMain).
		fd, err := openSame(s.Exe, s.ExeFD)
		if err != nil {
			return false, err
		}
		if fd >= 0 {
			s.exeBound = true
			srcs = append(srcs, source{host: s.Exe, dst: SandboxExe, fd: fd})
		}
	}
	if s.Workspace != "" {
		if err := add(s.Workspace, SandboxWorkspace, true, false); err != nil {
			return false, err
		}
	}
	if s.Tree != "" {
		// After the workspace: these binds land inside it.
		for _, d := range TreeDirs {
			if err := add(filepath.Join(s.Tree, d), SandboxWorkspace+"/"+d, false, true); err != nil {
				return false, err
			}
		}
	}
	for _, d := range []string{"null", "zero", "random", "urandom"} {
		if err := add("/dev/"+d, "/dev/"+d, true, false); err != nil {
			return false, err
		}
	}

	r := newRootDir
	if err := unix.Mount("toolfold", r, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size=4m,nr_inodes=4096,mode=0755"); err != nil {
		return false, fmt.Errorf("mount the root tmpfs: %w", err)
	}
	for _, d := range []string{"etc", "dev", "proc", "tmp", "workspace"} {
		if err := os.Mkdir(r+"/"+d, 0o755); err != nil {
			return false, err
		}
	}
	if err := writeEtc(r + "/etc"); err != nil {
		return false, err
	}
	// /tmp first: nothing is bound beneath it, but a bind there must not be hidden.
	tmpOpts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=1777", max(s.TmpBytes, 1<<20), tmpFiles)
	if err := unix.Mount("tmp", r+"/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, tmpOpts); err != nil {
		return false, fmt.Errorf("mount /tmp: %w", err)
	}
	if s.Workspace == "" {
		opts := fmt.Sprintf("size=%d,nr_inodes=%d,mode=0755,uid=%d,gid=%d", max(s.WorkspaceBytes, 1<<20), workspaceFiles, sandboxUID, sandboxGID)
		if err := unix.Mount("workspace", r+SandboxWorkspace, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
			return false, fmt.Errorf("mount /workspace: %w", err)
		}
	}
	if err := unix.Mount("dev", r+"/dev", "tmpfs", unix.MS_NOSUID|unix.MS_NOEXEC, "size=64k,nr_inodes=64,mode=0755"); err != nil {
		return false, fmt.Errorf("mount /dev: %w", err)
	}
	for _, l := range [][2]string{{"/proc/self/fd", "fd"}, {"/proc/self/fd/0", "stdin"}, {"/proc/self/fd/1", "stdout"}, {"/proc/self/fd/2", "stderr"}} {
		if err := os.Symlink(l[0], r+"/dev/"+l[1]); err != nil {
			return false, err
		}
	}
	for _, src := range srcs {
		if inTree(src.dst) && !mountable(r+src.dst) {
			unix.Close(src.fd) // a file of that name in a kept workspace: that run goes without
			continue
		}
		if err := bindInto(r, src.dst, src.fd, src.link, src.rw, src.dir); err != nil {
			return false, fmt.Errorf("bind %s: %w", src.host, err)
		}
		if src.fd >= 0 {
			unix.Close(src.fd)
		}
	}
	proc = mountProc(r + "/proc")

	if err := os.Chdir(r); err != nil {
		return false, err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return false, fmt.Errorf("pivot_root: %w", err)
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return false, fmt.Errorf("detach the old root: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return false, err
	}
	for _, p := range []string{"/dev", "/"} {
		if err := unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID, ""); err != nil {
			return false, fmt.Errorf("remount %s read-only: %w", p, err)
		}
	}
	return proc, nil
}

// openSame opens path (O_PATH, not following a last link) when it is the
// file open on fd; -1 when it is another file or none.
func openSame(path string, fd int) (int, error) {
	var want, got unix.Stat_t
	if fd < 3 || unix.Fstat(fd, &want) != nil || want.Mode&unix.S_IFMT != unix.S_IFREG {
		return -1, fmt.Errorf("no open binary on fd %d", fd)
	}
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, nil
	}
	if unix.Fstat(pfd, &got) != nil || got.Dev != want.Dev || got.Ino != want.Ino {
		unix.Close(pfd)
		return -1, nil
	}
	return pfd, nil
}

// bindInto recreates a link or binds the source fd at root+dst, creating
// the mount point and its parents. Read-only binds are remounted ro,
// nosuid, nodev; device nodes keep dev (bound with nodev they fail with
// EACCES).
func bindInto(root, dst string, fd int, link string, rw, dir bool) error {
	target := root + dst
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	if link != "" {
		return os.Symlink(link, target)
	}
	if dir {
		if err := os.MkdirAll(target, 0o755); err != nil {
			return err
		}
	} else if err := os.WriteFile(target, nil, 0o644); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	src := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := unix.Mount(src, target, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_NOSUID)
	if !rw {
		flags |= unix.MS_RDONLY | unix.MS_NODEV
	} else if strings.HasPrefix(dst, "/dev/") {
		flags |= unix.MS_NOEXEC
	} else {
		flags |= unix.MS_NODEV
	}
	if err := unix.Mount("", target, "", flags, ""); err != nil {
		return fmt.Errorf("remount: %w", err)
	}
	return nil
}

// mountProc mounts a fresh proc of the run's PID namespace, hiding other
// users' processes (the init) where the kernel allows it.
func mountProc(dir string) bool {
	flags := uintptr(unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC)
	for _, opts := range []string{"hidepid=invisible", "hidepid=2", ""} {
		if unix.Mount("proc", dir, "proc", flags, opts) == nil {
			return true
		}
	}
	return false
}

// writeEtc writes the synthetic /etc: one user, one group, localhost, no
// name servers.
func writeEtc(dir string) error {
	files := map[string]string{
		"passwd":        fmt.Sprintf("root:x:0:0:root:/:/usr/sbin/nologin\nsandbox:x:%d:%d:sandbox:%s:/bin/sh\n", sandboxUID, sandboxGID, SandboxWorkspace),
		"group":         fmt.Sprintf("root:x:0:\nsandbox:x:%d:\n", sandboxGID),
		"hosts":         "127.0.0.1\tlocalhost\n::1\tlocalhost\n",
		"resolv.conf":   "",
		"nsswitch.conf": "passwd: files\ngroup: files\nhosts: files\n",
		"hostname":      "sandbox\n",
	}
	for name, content := range files {
		if err := os.WriteFile(dir+"/"+name, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// underRuntime reports whether p lies in a directory of systemPaths, so is
// visible already.
func underRuntime(p string) bool {
	for _, r := range systemPaths {
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}

// inTree reports whether dst is where a TreeDirs directory is bound.
func inTree(dst string) bool {
	for _, d := range TreeDirs {
		if dst == SandboxWorkspace+"/"+d {
			return true
		}
	}
	return false
}

// mountable reports whether a directory can be bound at target: nothing
// is there, or a directory (not a file or link a kept workspace holds).
func mountable(target string) bool {
	fi, err := os.Lstat(target)
	return err != nil || fi.IsDir()
}
