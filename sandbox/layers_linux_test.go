package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
