package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/toolfold/toolfold/internal/fsown"
	"golang.org/x/sys/unix"
)

// The binary the sandbox's processes start from is opened once and vetted
// as opened (its owner, mode and directories, then, for toolfold-sandbox,
// its Identity); every init and Lua child is then started from that
// descriptor (exec of /proc/self/fd/N), never from the path again. Whoever
// swaps or deletes the file at the path afterwards changes nothing that
// runs: the init runs as root of its namespace with every capability until
// it has built the sandbox, so what runs as the init must be what was
// checked.

// exeFile is a binary held open for the life of the process.
type exeFile struct {
	path string   // where it was found: argv[0] and messages only
	f    *os.File // read-only, close-on-exec
	fd   int      // f's descriptor
}

// openedExes caches openExe by path: a binary is opened and vetted once,
// and a runner made later for the same path starts what was vetted then.
var openedExes sync.Map // path → func() (*exeFile, error)

// openExe opens the binary at path (made absolute, symbolic links
// resolved) once per process and vets the open file (vetExe).
func openExe(path string) (*exeFile, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	once, _ := openedExes.LoadOrStore(abs, sync.OnceValues(func() (*exeFile, error) { return openVetted(abs) }))
	return once.(func() (*exeFile, error))()
}

// openVetted opens path, without following a last symbolic link, and vets
// it.
func openVetted(path string) (*exeFile, error) {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, err
	}
	if err := vetExe(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return newExeFile(path, f), nil
}

// newExeFile holds f, opened from path.
func newExeFile(path string, f *os.File) *exeFile {
	return &exeFile{path: path, f: f, fd: int(f.Fd())}
}

// openSelf opens the running binary itself through /proc/self/exe (the
// very file this process runs, whatever its path names now); path is its
// name for argv[0] and messages.
func openSelf(path string) (*exeFile, error) {
	link := selfExeLink
	if link == "" {
		link = path
	}
	f, err := os.OpenFile(link, os.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open the running binary: %w", err)
	}
	return newExeFile(path, f), nil
}

// errUntrusted marks a binary refused for its owner, mode or directory.
var errUntrusted = errors.New("not trusted")

// vetExe checks f, opened from path: a regular executable file owned by
// root or by this process's user, that neither its group nor others may
// write, in directories that only root or this user may change (a sticky
// directory that one of them owns, such as /tmp, may be writable by all),
// and still the file at path once they are checked.
func vetExe(f *os.File, path string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	me := fsown.Me()
	if !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	switch e := fsown.Check(st, fsown.Options{Root: true}); {
	case e == nil:
	case e.Writable:
		return fmt.Errorf("%s is %w: others may write it (mode %04o); chmod go-w it", path, errUntrusted, st.Mode().Perm())
	default:
		return fmt.Errorf("%s is %w: it is not owned by root or by toolfold's user (uid %d)", path, errUntrusted, me)
	}
	for d := filepath.Dir(path); ; d = filepath.Dir(d) {
		if err := vetDir(d); err != nil {
			return fmt.Errorf("%s is %w: %v, so anyone who can write there could replace it; keep it in a directory only root or uid %d can write", path, errUntrusted, err, me)
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	now, err := os.Lstat(path)
	if err != nil || !os.SameFile(st, now) {
		return fmt.Errorf("%s changed while it was checked; start toolfold again", path)
	}
	return nil
}

// vetDir checks one directory above a binary: owned by root or toolfold's
// user, and writable by its group or others only when sticky.
func vetDir(d string) error {
	st, err := os.Lstat(d)
	switch {
	case err != nil:
		return err
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", d)
	}
	switch e := fsown.Check(st, fsown.Options{Root: true, Sticky: true}); {
	case e == nil:
		return nil
	case e.Writable:
		return fmt.Errorf("others may write the directory %s (mode %04o, not sticky)", d, st.Mode().Perm())
	default:
		return fmt.Errorf("the directory %s is owned by another user", d)
	}
}

// attach makes cmd start this binary: a fresh descriptor of it is added to
// cmd.ExtraFiles and cmd.Path names that descriptor in the child (at exec
// time it is the child's fd, not close-on-exec, so a script interpreter
// can open it too). cmd.Args[0] is left as it is. It returns the
// descriptor's number in the child and the parent's copy, which the
// caller closes once cmd has started (or failed to).
func (e *exeFile) attach(cmd *exec.Cmd) (int, *os.File, error) {
	fd, err := unix.FcntlInt(uintptr(e.fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return 0, nil, fmt.Errorf("sandbox: duplicate the descriptor of %s: %w", e.path, err)
	}
	dup := os.NewFile(uintptr(fd), e.path)
	n := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, dup)
	cmd.Path = fdExecPath(n, e.path)
	cmd.Err = nil // from exec.Command's look-up of the path, which is not used
	return n, dup, nil
}
