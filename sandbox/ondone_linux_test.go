package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// runOnDone runs a shell script as a sandbox child with Request.OnDone set
// and returns what OnDone got (nil if it was not called), what Run
// returned, and the run's processes neither stopped nor ended, as OnDone
// saw them after giving a stopped process time to stop.
func runOnDone(t *testing.T, script string, lim Limits) (answered, res *Result, leftAtAnswer []int) {
	return runOnDoneIn(t, script, lim, "", nil)
}

// runOnDoneIn is runOnDone in the workspace dir ("": none), calling atDone,
// when set, first thing in OnDone.
func runOnDoneIn(t *testing.T, script string, lim Limits, dir string, atDone func()) (answered, res *Result, leftAtAnswer []int) {
	t.Helper()
	needSandbox(t)
	p := testRunner(t, "sh")
	p.command = func(Limits) ([]string, []string) { return []string{"/bin/sh", "-c", script}, childEnv }
	p.exe = "/bin/sh"
	var w runWatch
	p.onStart = w.started
	var calls atomic.Int32
	req := Request{Code: "unused", Limits: lim, Workdir: dir, OnDone: func(r *Result) {
		if atDone != nil {
			atDone()
		}
		calls.Add(1)
		answered = r
		// SIGSTOP was sent before this call (SIGKILL follows it): a
		// stopped process is so within milliseconds; one still running
		// after this long was not stopped.
		time.Sleep(300 * time.Millisecond)
		leftAtAnswer = runningIn(w.ns, w.pid)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := p.run(ctx, req, &fakeHost{})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	w.assertGone(t)
	if n := calls.Load(); n > 1 {
		t.Errorf("OnDone called %d times, want at most once", n)
	}
	if answered != nil && answered != res {
		t.Errorf("Run returned %+v, not the result OnDone got (%+v)", res, answered)
	}
	return answered, res, leftAtAnswer
}

// A script that says it is done and goes on running (a loop, a daemon in
// a session of its own) is stopped at done: the caller answers with the
// result while nothing of the script runs any more.
func TestOnDoneStopsWhatRunsAfterDone(t *testing.T) {
	work := t.TempDir()
	log := filepath.Join(work, "log")
	size := func() int64 {
		fi, err := os.Stat(log)
		if err != nil {
			return -1
		}
		return fi.Size()
	}
	var atAnswer int64
	answered, res, left := runOnDoneIn(t, `echo before
setsid sh -c 'while :; do echo x >> log; done' </dev/null >/dev/null 2>&1 3>&- 4>&- &
while [ ! -s log ]; do sleep 0.01; done
echo '{"method":"done","params":{"value":7}}' >&3
while :; do echo after; sleep 0.01; done`, Limits{Timeout: 20 * time.Second}, work, func() { atAnswer = size() })
	if answered == nil {
		t.Fatalf("OnDone was not called; Run returned %+v", res)
	}
	if answered.Err != nil || string(answered.Value) != "7" {
		t.Errorf("answered Err %v, Value %s; want no error and 7", answered.Err, answered.Value)
	}
	if !strings.HasPrefix(answered.Output, "before\n") {
		t.Errorf("answered Output %q, want what was printed before done first", answered.Output)
	}
	if len(left) > 0 {
		t.Errorf("processes %v of the run were still running when the caller was answered", left)
	}
	// A write in flight when SIGKILL came may still land: one line.
	if after := size(); atAnswer < 0 || after > atAnswer+2 {
		t.Errorf("the daemon's log grew from %d to %d bytes after the answer: it ran on", atAnswer, after)
	}
}

// What the script printed before done is all in the answer, though part
// of it may still be in the pipe when done arrives.
func TestOnDoneKeepsOutputBeforeDone(t *testing.T) {
	for i := range 5 {
		answered, res, _ := runOnDone(t, `head -c 300000 /dev/zero | tr '\0' a
echo '{"method":"done","params":{}}' >&3
sleep 30`, Limits{OutputBytes: 1 << 20, Timeout: 20 * time.Second})
		if answered == nil {
			t.Fatalf("OnDone was not called; Run returned %+v", res)
		}
		if n := len(answered.Output); n != 300000 || answered.Err != nil {
			t.Fatalf("run %d: answered %d bytes of output (error %v), want all 300000", i, n, answered.Err)
		}
	}
}

// A script that printed past the flood limit before done is stopped for
// it, as without OnDone: no answer at done.
func TestOnDoneFlood(t *testing.T) {
	answered, res, _ := runOnDone(t, `head -c 3000000 /dev/zero | tr '\0' a
echo '{"method":"done","params":{}}' >&3`, Limits{OutputBytes: 1000, Timeout: 20 * time.Second})
	if answered != nil {
		t.Errorf("OnDone called for a run that flooded its output: %v", answered.Err)
	}
	if res.Err == nil || res.Err.Kind != "output" {
		t.Errorf("Err = %v, want the output limit", res.Err)
	}
}

// The real runtimes answer at done with what they printed and returned.
func TestOnDoneLua(t *testing.T) {
	var answered *Result
	res, err := newTestLua(t).Run(context.Background(), Request{Code: `print("hi") return 40 + 2`,
		OnDone: func(r *Result) { answered = r }}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if answered == nil || answered != res {
		t.Fatalf("OnDone got %v, Run returned %v: want the same result", answered, res)
	}
	if res.Output != "hi\n" || string(res.Value) != "42" || res.Err != nil {
		t.Errorf("got output %q value %s error %v", res.Output, res.Value, res.Err)
	}
}

// readPiped takes what is in the pipe now and returns without waiting for
// its writers to close it.
func TestReadPipedTakesWhatIsInThePipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close() // open while readPiped runs: it must not wait for EOF
	data := strings.Repeat("x", 60000)
	if _, err := w.WriteString(data); err != nil {
		t.Fatal(err)
	}
	c := &child{stdout: r, lim: Limits{OutputBytes: 1 << 20}.withDefaults()}
	out := newOutputBuffer(1 << 20)
	c.readPiped(out)
	if got := out.String(); got != data {
		t.Errorf("read %d bytes, want the %d in the pipe", len(got), len(data))
	}
}

// runningIn lists the processes of the PID namespace ns, but its init,
// that are neither stopped nor ended nor waiting in the kernel.
func runningIn(ns string, init int) []int {
	var running []int
	for _, pid := range inPIDNamespace(ns, init) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue // gone
		}
		st := string(b)
		if i := strings.LastIndexByte(st, ')'); i >= 0 && i+2 < len(st) {
			switch st[i+2] {
			case 'T', 't', 'Z', 'X':
				continue
			case 'D': // in the kernel (a vfork's parent waiting for its stopped child): the pending stop comes before any code of its own
				continue
			}
		}
		running = append(running, pid)
	}
	return running
}

// TestLuaChildMakesNoProcesses: the child of a sandboxed Lua run has its
// own seccomp filter on top of the init's (it refuses to make processes or
// leave its group, which is why the parent stops the group alone at done),
// and is held, not exited, when OnDone is called; nothing of the run is
// left after Run.
func TestLuaChildMakesNoProcesses(t *testing.T) {
	if l := needSandbox(t); !l.NoProcs || !seccompAvailable {
		t.Skip("no seccomp(2) with TSYNC here")
	}
	own := seccompFilters(t, "self")
	want := strconv.Itoa(own + 2) // the init's filter and the child's own, over this process's
	lua := newTestLua(t)
	var w runWatch
	lua.proc.onStart = w.started
	filters := childState(&w)
	var during, atDone string
	host := &fakeHost{call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		during = filters()
		return json.RawMessage(`1`), nil
	}}
	res, err := lua.Run(context.Background(), Request{Code: `return tools.x.y{}`,
		OnDone: func(*Result) { atDone = stoppedState(filters) }}, host)
	if err != nil || res.Err != nil {
		t.Fatalf("run: %v %v", err, res.Err)
	}
	// State and seccomp filters of the child.
	if !strings.HasSuffix(during, " "+want) {
		t.Errorf("during the run: %q; want %s filters: the init's and the child's own", during, want)
	}
	if atDone != "T "+want {
		t.Errorf("at done: %q; want the child held after done and stopped, not exited", atDone)
	}
	w.assertGone(t)
}

// TestPythonHeldAfterDone: a Python child whose parent answers at done
// waits to be stopped after done instead of exiting (holdAfterDone).
func TestPythonHeldAfterDone(t *testing.T) {
	needSandbox(t)
	py := newTestPython(t)
	var w runWatch
	py.in.proc.onStart = w.started
	var atDone string
	res, err := py.Run(context.Background(), Request{Code: `return 1`,
		OnDone: func(*Result) { atDone = stoppedState(childState(&w)) }}, &fakeHost{})
	if err != nil || res.Err != nil {
		t.Fatalf("run: %v %v", err, res.Err)
	}
	if !strings.HasPrefix(atDone, "T ") {
		t.Errorf("at done: %q; want the interpreter held after done and stopped, not exited", atDone)
	}
	w.assertGone(t)
}

// seccompFilters is the Seccomp_filters count of /proc/PID/status; the
// test is skipped on kernels that do not report it (before 5.9).
func seccompFilters(t *testing.T, pid string) int {
	t.Helper()
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "Seccomp_filters:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatalf("Seccomp_filters: %q", v)
			}
			return n
		}
	}
	t.Skip("this kernel does not report Seccomp_filters")
	return 0
}

// stoppedState polls state for a second until the child is stopped ("T"):
// SIGSTOP was sent before OnDone, and a child running when it came stops
// on its way back to user space. It returns the last state seen: an
// exited child ("Z", or none) never becomes "T".
func stoppedState(state func() string) string {
	s := state()
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); !strings.HasPrefix(s, "T ") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
		s = state()
	}
	return s
}

// childState returns a function that reports the state letter and the
// number of seccomp filters of the command the run's init (w) started.
func childState(w *runWatch) func() string {
	return func() string {
		kids, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", w.pid, w.pid))
		f := strings.Fields(string(kids))
		if len(f) != 1 {
			return fmt.Sprintf("the init has children %q, want its Lua child", kids)
		}
		status, _ := os.ReadFile("/proc/" + f[0] + "/status")
		var state, filters string
		for line := range strings.SplitSeq(string(status), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && (k == "State" || k == "Seccomp_filters") {
				if v = strings.TrimSpace(v); k == "State" {
					state = v[:1]
				} else {
					filters = v
				}
			}
		}
		return state + " " + filters
	}
}
