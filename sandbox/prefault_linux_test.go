package sandbox

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
)

// After a fork into a user namespace (how the sandbox's init starts), the
// proxy's next write to each of its pages faults; prefault takes those
// faults beforehand, without changing a byte.
func TestPrefaultBreaksCopyOnWrite(t *testing.T) {
	needSandbox(t)
	const size = 16 << 20
	buf := make([]byte, size)
	for i := 0; i < size; i += 4096 {
		buf[i] = byte(i >> 12)
	}
	fork := func() {
		cmd := exec.Command("/bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}}
		if err := cmd.Run(); err != nil {
			t.Fatalf("fork into a user namespace: %v", err)
		}
	}
	// touch writes every page of buf, on one thread, and returns the page
	// faults that thread took.
	touch := func() int64 {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var before, after syscall.Rusage
		syscall.Getrusage(1 /* RUSAGE_THREAD */, &before)
		for i := 0; i < size; i += 4096 {
			buf[i]++
		}
		syscall.Getrusage(1, &after)
		return after.Minflt - before.Minflt
	}
	fork()
	without := touch()
	fork()
	prefaultPass()
	if noPopulate.Load() {
		t.Skip("this kernel has no MADV_POPULATE_WRITE (Linux 5.14)")
	}
	with := touch()
	t.Logf("page faults writing %d pages after a fork: %d, after prefault: %d", size/4096, without, with)
	if without < size/4096/2 {
		t.Fatalf("the fork left %d faults on %d pages: nothing to measure", without, size/4096)
	}
	if with > without/10 {
		t.Errorf("after prefault the writes still took %d page faults (%d without it)", with, without)
	}
	for i := 0; i < size; i += 4096 {
		if buf[i] != byte(i>>12)+2 {
			t.Fatalf("page %d holds %d, want %d: prefault changed memory", i/4096, buf[i], byte(i>>12)+2)
		}
	}
}
