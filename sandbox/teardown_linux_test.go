package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// procField returns field n (1-based, as proc(5) numbers them) of
// /proc/pid/stat.
func procField(t *testing.T, pid, n int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	rest := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // field 3 on
	return rest[n-3]
}

// TestLowerGroupReachesEveryProcess: a group about to be killed at done
// gets the lowest priority, its leader and the process it started alike.
func TestLowerGroupReachesEveryProcess(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	var sleeper int
	for deadline := time.Now().Add(5 * time.Second); sleeper == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the group's second process did not start")
		}
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/task/" + strconv.Itoa(cmd.Process.Pid) + "/children")
		if f := strings.Fields(string(b)); len(f) > 0 {
			sleeper, _ = strconv.Atoi(f[0])
		}
	}
	lowerGroup(cmd.Process.Pid)
	for _, pid := range []int{cmd.Process.Pid, sleeper} {
		if nice := procField(t, pid, 19); nice != "19" {
			t.Errorf("pid %d: nice %s after lowerGroup, want 19", pid, nice)
		}
	}
}

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
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
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
			t.Fatalf("10 s without its run frame, the child's data size is still unbounded:\n%s", b)
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
	for deadline := time.Now().Add(10 * time.Second); sp.c.init != nil; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(pid) + "/children")
		if f := strings.Fields(string(b)); len(f) > 0 {
			pid, _ = strconv.Atoi(f[0])
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the init started no interpreter within 10 s")
		}
	}
	parents := Limits{}.withDefaults().dataLimit()
	var soft uint64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
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
			t.Fatalf("10 s into waiting for its script, the warm child's (pid %d) data size limit is %d, not lowered below its parent's %d", pid, soft, parents)
		}
	}
}

// TestWarmSpareStartsAtDone: a run answered at done starts its successor's
// child then, not when its own processes are gone (their teardown runs at
// the lowest priority and may take a while on a busy machine). The run is
// held here by a tool call in flight that ignores its cancellation.
func TestWarmSpareStartsAtDone(t *testing.T) {
	py := newTestPython(t)
	warmed(t, py.in.proc)
	dir := t.TempDir()
	release := make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	host := &fakeHost{call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		<-release
		return json.RawMessage(`{}`), nil
	}}
	answered, ran := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ran)
		_, _ = py.Run(context.Background(), Request{Code: "import threading, time\n" +
			"threading.Thread(target=lambda: call('x.y'), daemon=True).start()\n" +
			"time.sleep(0.3)\nreturn 1", Workdir: dir,
			OnDone: func(*Result) { close(answered) }}, host)
	}()
	defer func() { free(); <-ran }()
	select {
	case <-answered:
	case <-time.After(30 * time.Second):
		t.Fatal("the run was not answered at done")
	}
	waitSpare(t, py.in.proc, dir, Limits{})
	select {
	case <-ran:
		t.Fatal("Run returned with a call in flight: the test proves nothing")
	default:
	}
}
