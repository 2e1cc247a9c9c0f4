package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Each layer alone, in a helper process with no namespaces, running as the
// test's user (root on the project's machine, who could otherwise do all of
// it): the layer must hold even where every layer above it failed.

const layerEnv = "TOOLFOLD_TEST_LAYER"

// TestLayerHelper is the helper process: it applies one layer to a locked
// thread and reports, line by line, what was refused.
func TestLayerHelper(t *testing.T) {
	layer := os.Getenv(layerEnv)
	if layer == "" {
		t.Skip("helper process only")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread() // never unlocked: the restricted thread dies with the goroutine
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			fmt.Println("nnp:", err)
			return
		}
		var err error
		switch layer {
		case "seccomp":
			err = installSeccomp()
		case "landlock":
			err = applyLandlock(landlockABI(), nil, false)
		case "noprocs":
			err = installNoProcs()
		}
		if err != nil {
			fmt.Println("apply:", err)
			return
		}
		report := func(what string, err error) { fmt.Printf("%s: %v\n", what, err) }
		for _, arg := range strings.Split(os.Getenv(layerEnv+"_ARGS"), ",") {
			switch name, val, _ := strings.Cut(arg, "="); name {
			case "inet":
				_, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
				report(name, err)
			case "unix":
				fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
				unix.Close(fd)
				report(name, err)
			case "userns":
				report(name, unix.Unshare(unix.CLONE_NEWUSER))
			case "mount":
				report(name, unix.Mount("x", val, "tmpfs", 0, ""))
			case "ptrace":
				report(name, unix.PtraceAttach(os.Getppid()))
			case "exec":
				_, err := exec.Command("/bin/true").Output()
				report(name, err)
			case "read":
				_, err := os.ReadFile(val)
				report(name, err)
			case "write":
				report(name, os.WriteFile(val, []byte("x"), 0o644))
			case "connect":
				c, err := net.Dial("tcp", val)
				if err == nil {
					c.Close()
				}
				report(name, err)
			case "signal":
				report(name, unix.Kill(os.Getppid(), 0))
			case "fork", "vfork":
				nr := map[string]uintptr{"fork": unix.SYS_FORK, "vfork": unix.SYS_VFORK}[name]
				_, _, errno := unix.RawSyscall(nr, 0, 0, 0)
				if errno == 0 {
					os.Exit(0) // the parent reports; never the child
				}
				report(name, errno)
			case "fork-elsewhere":
				// From a goroutine that is not locked, so on another
				// thread: TSYNC put the filter on every thread.
				ch := make(chan error)
				go func() {
					_, _, errno := unix.RawSyscall(unix.SYS_FORK, 0, 0, 0)
					if errno == 0 {
						os.Exit(0)
					}
					ch <- errno
				}()
				report(name, <-ch)
			case "clone3":
				_, _, errno := unix.RawSyscall(unix.SYS_CLONE3, 0, 0, 0)
				report(name, errno)
			case "execveat":
				path, _ := unix.BytePtrFromString("/bin/true")
				cwd := unix.AT_FDCWD
				_, _, errno := unix.RawSyscall6(unix.SYS_EXECVEAT, uintptr(cwd), uintptr(unsafe.Pointer(path)), 0, 0, 0, 0)
				report(name, errno)
			case "setsid":
				_, err := unix.Setsid()
				report(name, err)
			case "personality":
				_, _, errno := unix.RawSyscall(unix.SYS_PERSONALITY, uintptr(mustHex(val)), 0, 0)
				report(name+"="+val, errnoErr(errno))
			case "modify_ldt", "memfd_secret", "mbind", "vmsplice", "sysfs", "statmount", "listmount":
				nr := map[string]uintptr{"modify_ldt": unix.SYS_MODIFY_LDT, "memfd_secret": unix.SYS_MEMFD_SECRET,
					"mbind": unix.SYS_MBIND, "vmsplice": unix.SYS_VMSPLICE, "sysfs": unix.SYS_SYSFS,
					"statmount": unix.SYS_STATMOUNT, "listmount": unix.SYS_LISTMOUNT}[name]
				arg0 := map[string]uintptr{"sysfs": 3, "vmsplice": ^uintptr(0)}[name] // sysfs(3): how many types
				_, _, errno := unix.RawSyscall6(nr, arg0, 0, 0, 0, 0, 0)
				report(name, errnoErr(errno))
			case "setxattr":
				report(name, unix.Setxattr(val, "user.toolfold", []byte("1"), 0))
			case "lsetxattr":
				report(name, unix.Lsetxattr(val, "user.toolfold", []byte("1"), 0))
			case "fsetxattr", "fremovexattr":
				f, err := os.Open(val)
				if err == nil {
					if name == "fsetxattr" {
						err = unix.Fsetxattr(int(f.Fd()), "user.toolfold", []byte("1"), 0)
					} else {
						err = unix.Fremovexattr(int(f.Fd()), "user.toolfold")
					}
					f.Close()
				}
				report(name, err)
			case "removexattr":
				report(name, unix.Removexattr(val, "user.toolfold"))
			case "lremovexattr":
				report(name, unix.Lremovexattr(val, "user.toolfold"))
			case "setpgid":
				report(name, unix.Setpgid(0, 0))
			case "threads":
				// New OS threads (clone with CLONE_THREAD), each locked by
				// a goroutine that blocks: the Go runtime must still make
				// them.
				var wg sync.WaitGroup
				for range 4 {
					wg.Go(func() {
						runtime.LockOSThread()
						time.Sleep(20 * time.Millisecond)
					})
				}
				wg.Wait()
				report(name, nil)
			}
		}
	}()
	<-done
}

// errnoErr is errno as an error, nil for 0.
func errnoErr(errno unix.Errno) error {
	if errno == 0 {
		return nil
	}
	return errno
}

// mustHex parses a hexadecimal argument of the helper.
func mustHex(s string) uint64 {
	n, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		panic(err)
	}
	return n
}

func runLayerHelper(t *testing.T, layer string, args ...string) string {
	t.Helper()
	cmd := exec.Command(testBinary(), "-test.run=^TestLayerHelper$", "-test.v")
	cmd.Env = append(os.Environ(), layerEnv+"="+layer, layerEnv+"_ARGS="+strings.Join(args, ","))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, out)
	}
	return string(out)
}

func TestSeccompAlone(t *testing.T) {
	if !seccompAvailable {
		t.Skip("no seccomp filter for " + runtime.GOARCH)
	}
	dir := t.TempDir()
	out := runLayerHelper(t, "seccomp", "inet", "unix", "userns", "mount="+dir, "ptrace", "exec")
	for _, want := range []string{"inet: operation not permitted", "unix: <nil>", "userns: operation not permitted",
		"mount: operation not permitted", "ptrace: operation not permitted", "exec: <nil>"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("seccomp alone: want %q in\n%s", want, out)
		}
	}
}

// TestSeccompDeniesRareSurfaces: personality takes only the query and
// plain PER_LINUX (not READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE);
// modify_ldt, memfd_secret, mbind, vmsplice, sysfs, statmount and
// listmount are refused; extended attributes cannot be set or removed
// (EOPNOTSUPP, as on a file system without them).
func TestSeccompDeniesRareSurfaces(t *testing.T) {
	if !seccompAvailable {
		t.Skip("no seccomp filter for " + runtime.GOARCH)
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runLayerHelper(t, "seccomp", "personality=ffffffff", "personality=0", "personality=400000", "personality=40000",
		"personality=8", "modify_ldt", "memfd_secret", "mbind", "vmsplice", "sysfs", "statmount", "listmount",
		"setxattr="+file, "lsetxattr="+file, "fsetxattr="+file, "removexattr="+file, "lremovexattr="+file, "fremovexattr="+file)
	const eperm, enotsup = "operation not permitted", "operation not supported"
	for _, want := range []string{"personality=ffffffff: <nil>", "personality=0: <nil>",
		"personality=400000: " + eperm, "personality=40000: " + eperm, "personality=8: " + eperm,
		"modify_ldt: " + eperm, "memfd_secret: " + eperm, "mbind: " + eperm, "vmsplice: " + eperm,
		"sysfs: " + eperm, "statmount: " + eperm, "listmount: " + eperm,
		"setxattr: " + enotsup, "lsetxattr: " + enotsup, "fsetxattr: " + enotsup,
		"removexattr: " + enotsup, "lremovexattr: " + enotsup, "fremovexattr: " + enotsup} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("seccomp alone: want %q in\n%s", want, out)
		}
	}
}

// TestNoProcsAlone checks the filter a Lua child installs on itself: no
// process made (fork, clone without CLONE_THREAD, so no exec either), no
// leaving its process group, while the Go runtime still makes threads.
func TestNoProcsAlone(t *testing.T) {
	if !seccompAvailable {
		t.Skip("no seccomp filter for " + runtime.GOARCH)
	}
	out := runLayerHelper(t, "noprocs", "threads", "exec", "fork", "vfork", "fork-elsewhere", "clone3", "execveat",
		"setsid", "setpgid", "unix", "threads")
	for _, want := range []string{"threads: <nil>", "exec: fork/exec /bin/true: operation not permitted",
		"fork: operation not permitted", "vfork: operation not permitted", "fork-elsewhere: operation not permitted",
		"clone3: function not implemented", "execveat: operation not permitted",
		"setsid: operation not permitted", "setpgid: operation not permitted", "unix: <nil>"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("noprocs alone: want %q in\n%s", want, out)
		}
	}
	if n := strings.Count(out, "threads: <nil>\n"); n != 2 {
		t.Errorf("want threads made before and after the other checks, got %d in\n%s", n, out)
	}
}

func TestLandlockAlone(t *testing.T) {
	if landlockABI() < 6 {
		t.Skipf("Landlock ABI %d: no signal scoping", landlockABI())
	}
	secretDir, err := os.MkdirTemp("/var/tmp", "toolfold-landlock-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(secretDir)
	secret := filepath.Join(secretDir, "secret")
	os.WriteFile(secret, []byte("x"), 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	out := runLayerHelper(t, "landlock", "read="+secret, "read=/etc/hostname", "write=/etc/toolfold-landlock-test",
		"write="+filepath.Join(secretDir, "new"), "write=/tmp/toolfold-landlock-ok", "connect="+ln.Addr().String(), "signal", "exec")
	os.Remove("/tmp/toolfold-landlock-ok")
	for _, want := range []string{"read=" + secret, "write=/etc/toolfold-landlock-test", "write=" + filepath.Join(secretDir, "new")} {
		_, path, _ := strings.Cut(want, "=")
		if !strings.Contains(out, path+": permission denied") {
			t.Errorf("landlock alone: %s not denied:\n%s", want, out)
		}
	}
	for _, want := range []string{"connect: dial tcp " + ln.Addr().String() + ": connect: permission denied",
		"signal: operation not permitted", "exec: <nil>", "write: <nil>"} {
		if !strings.Contains(out, want) {
			t.Errorf("landlock alone: want %q in\n%s", want, out)
		}
	}
	if _, err := os.Stat("/etc/toolfold-landlock-test"); err == nil {
		os.Remove("/etc/toolfold-landlock-test")
		t.Error("wrote /etc under Landlock")
	}
}
