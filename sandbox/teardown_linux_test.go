package sandbox

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// TestChildGuardsMemoryBeforeItsRun: a Lua child told its memory limit in
// argv bounds its data size while it waits for the run frame (a warm
// child), not after the frame comes on the run's clock.
func TestChildGuardsMemoryBeforeItsRun(t *testing.T) {
	var rl syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_DATA, &rl) != nil || rl.Cur != ^uint64(0) {
		t.Skip("the test's own data size is bounded: the child's bound would not show")
	}
	r1, w1, err := os.Pipe() // the frame never comes: the child waits
	if err != nil {
		t.Fatal(err)
	}
	r2, w2, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { r1.Close(); w1.Close(); r2.Close(); w2.Close() }()
	cmd := exec.Command(testBinary(), ChildArg, "lua", strconv.Itoa(64<<20))
	cmd.ExtraFiles = []*os.File{w2, r1} // fds 3 (to the parent) and 4 (from it)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	limits := "/proc/" + strconv.Itoa(cmd.Process.Pid) + "/limits"
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(limits)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "Max data size") && !strings.Contains(line, "unlimited") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v without its run frame, the child's data size is still unbounded:\n%s", testlog.Bound(time.Minute), b)
		}
	}
}

// TestWarmPythonGuardsMemoryBeforeItsRun: a warm Python child lowers its
// data size limit (from what its parent set, the memory limit plus a
// start-up allowance, to its size plus the memory limit) while it waits
// for its script, not on the run's clock.
func TestWarmPythonGuardsMemoryBeforeItsRun(t *testing.T) {
	py := newTestPython(t)
	warmed(t, py.in.proc)
	dir := t.TempDir()
	if res := runIn(t, py, dir, "return 1", Limits{}); res.Err != nil {
		t.Fatalf("first run: %v", res.Err)
	}
	sp := waitSpare(t, py.in.proc, dir, Limits{})
	pid := sp.c.pid // the interpreter, or the sandbox's init that starts it
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); sp.c.init != nil; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
		if f := strings.Fields(string(b)); len(f) > 0 {
			pid, _ = strconv.Atoi(f[0])
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the init started no interpreter within %v", testlog.Bound(time.Minute))
		}
	}
	parents := Limits{}.withDefaults().dataLimit()
	var soft uint64
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); ; time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			if f := strings.Fields(line); strings.HasPrefix(line, "Max data size") && len(f) > 3 {
				soft, _ = strconv.ParseUint(f[3], 10, 64)
			}
		}
		if soft != 0 && soft < parents {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v into waiting for its script, the warm child's (pid %d) data size limit is %d, not lowered below its parent's %d", testlog.Bound(time.Minute), pid, soft, parents)
		}
	}
}
