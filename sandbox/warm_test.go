package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// warmed makes p keep warm children, logging to a testlog.Runs, and
// records the pid of every child it starts. It closes p's spares at the
// end of the test.
func warmed(t *testing.T, p *procRunner) (*testlog.Runs, func() []int) {
	t.Helper()
	rl := &testlog.Runs{}
	p.log = slog.New(rl)
	p.warm = newSpares(p, true)
	var mu sync.Mutex
	var pids []int
	p.onStart = func(pid int) {
		mu.Lock()
		pids = append(pids, pid)
		mu.Unlock()
	}
	t.Cleanup(func() {
		p.close()
		for _, pid := range pids {
			if alive(pid) {
				t.Errorf("child %d still running after Close", pid)
			}
		}
	})
	return rl, func() []int {
		mu.Lock()
		defer mu.Unlock()
		return append([]int(nil), pids...)
	}
}

// waitSpare waits until p keeps a started spare for dir with lim.
func waitSpare(t *testing.T, p *procRunner, dir string, lim Limits) *spare {
	t.Helper()
	key := spareKey{dir: dir, lim: lim.withDefaults()}
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for time.Now().Before(deadline) {
		p.warm.mu.Lock()
		sp := p.warm.byKey[key]
		p.warm.mu.Unlock()
		if sp != nil {
			select {
			case <-sp.ready:
				if sp.c == nil {
					t.Fatalf("the spare did not start: %v", sp.err)
				}
				return sp
			default:
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no spare was started within %v", testlog.Bound(time.Minute))
	return nil
}

// sameJSON reports whether got and want are the same JSON value.
func sameJSON(got json.RawMessage, want string) bool {
	var g, w any
	return json.Unmarshal(got, &g) == nil && json.Unmarshal([]byte(want), &w) == nil && reflect.DeepEqual(g, w)
}

func runIn(t *testing.T, r Runner, dir, code string, lim Limits) *Result {
	t.Helper()
	res, err := r.Run(context.Background(), Request{Code: code, Workdir: dir, Limits: lim}, &fakeHost{})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestWarmRunUsesTheSpare(t *testing.T) {
	l := newTestLua(t)
	rl, _ := warmed(t, l.proc)
	dir := t.TempDir()
	// A global set by one run is not seen by the next: each run has a child
	// of its own, the spare included.
	code := `counter = (counter or 0) + 1; return counter`
	if res := runIn(t, l, dir, code, Limits{}); res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("first run: %s %v", res.Value, res.Err)
	}
	if rl.MustLast(t) {
		t.Fatal("the first run was warm; nothing could have started its child")
	}
	waitSpare(t, l.proc, dir, Limits{})
	if res := runIn(t, l, dir, code, Limits{}); res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("warm run: %s %v", res.Value, res.Err)
	}
	if !rl.MustLast(t) {
		t.Fatal("the second run did not use the spare")
	}
	// A run that comes before its spare finished starting waits for it.
	if res := runIn(t, l, dir, code, Limits{}); res.Err != nil || string(res.Value) != "1" {
		t.Fatalf("third run: %s %v", res.Value, res.Err)
	}
	if !rl.MustLast(t) {
		t.Fatal("the third run did not use the spare started by the second")
	}
}

func TestWarmSpareOnlyForTheSameWorkdirAndLimits(t *testing.T) {
	l := newTestLua(t)
	rl, _ := warmed(t, l.proc)
	a, b := t.TempDir(), t.TempDir()
	runIn(t, l, a, "return 1", Limits{})
	waitSpare(t, l.proc, a, Limits{})
	if runIn(t, l, b, "return 1", Limits{}); rl.MustLast(t) {
		t.Error("a run in another workdir used the spare")
	}
	if runIn(t, l, a, "return 1", Limits{OutputBytes: 100}); rl.MustLast(t) {
		t.Error("a run with other limits used the spare")
	}
	// The spare for a, default limits, is still kept.
	if runIn(t, l, a, "return 1", Limits{}); !rl.MustLast(t) {
		t.Error("the spare kept for a was not used")
	}
}

func TestWarmSpareThatDiedIsNotUsed(t *testing.T) {
	l := newTestLua(t)
	rl, _ := warmed(t, l.proc)
	dir := t.TempDir()
	runIn(t, l, dir, "return 1", Limits{})
	sp := waitSpare(t, l.proc, dir, Limits{})
	sp.c.kill(&ScriptError{Kind: "killed", Msg: "test"})
	<-sp.c.exited
	res := runIn(t, l, dir, "return 2", Limits{})
	if res.Err != nil || string(res.Value) != "2" {
		t.Fatalf("run after the spare died: %s %v", res.Value, res.Err)
	}
	if rl.MustLast(t) {
		t.Error("a dead spare was used")
	}
}

func TestWarmForgetAndClose(t *testing.T) {
	l := newTestLua(t)
	rl, pids := warmed(t, l.proc)
	dir := t.TempDir()
	runIn(t, l, dir, "return 1", Limits{})
	sp := waitSpare(t, l.proc, dir, Limits{})
	l.Forget(dir)
	if alive(sp.c.pid) {
		t.Fatalf("the spare %d still runs after Forget", sp.c.pid)
	}
	if runIn(t, l, dir, "return 1", Limits{}); rl.MustLast(t) {
		t.Error("a run after Forget used a spare")
	}
	waitSpare(t, l.proc, dir, Limits{})
	l.Close()
	for _, pid := range pids() {
		if alive(pid) {
			t.Errorf("child %d still runs after Close", pid)
		}
	}
	// Runs still work after Close, cold, and leave nothing behind.
	if res := runIn(t, l, dir, "return 3", Limits{}); res.Err != nil || string(res.Value) != "3" || rl.MustLast(t) {
		t.Fatalf("run after Close: %s %v warm=%v", res.Value, res.Err, rl.MustLast(t))
	}
	l.proc.warm.mu.Lock()
	n := len(l.proc.warm.byKey)
	l.proc.warm.mu.Unlock()
	if n != 0 {
		t.Errorf("%d spares kept after Close", n)
	}
}

func TestWarmSparesAreBounded(t *testing.T) {
	l := newTestLua(t)
	_, pids := warmed(t, l.proc)
	for range maxSpares + 2 {
		runIn(t, l, t.TempDir(), "return 1", Limits{})
	}
	l.proc.warm.mu.Lock()
	kept := slices.Collect(maps.Values(l.proc.warm.byKey))
	l.proc.warm.mu.Unlock()
	for _, sp := range kept {
		l.proc.warm.kick(sp) // not waiting for spareDelay
		<-sp.ready
	}
	l.proc.warm.close() // waits for every start
	if got := len(pids()); got != 2*maxSpares+2 {
		t.Errorf("%d children started for %d runs; want one per run and %d spares", got, maxSpares+2, maxSpares)
	}
}

// TestWarmInterpreters: Python and JavaScript runs from warm children get
// their prelude (Python's is written on the bridge when the spare starts),
// start clean, and see the workspace as a cold run does.
func TestWarmInterpreters(t *testing.T) {
	for _, tc := range []struct {
		name        string
		r           func(t *testing.T) (Runner, *procRunner)
		write, read string
	}{
		{"python", func(t *testing.T) (Runner, *procRunner) { py := newTestPython(t); return py, py.in.proc },
			"x = globals().get('x', 0) + 1\nopen('note.txt', 'w').write('hi')\nreturn x",
			"x = globals().get('x', 0) + 1\nreturn [x, open('note.txt').read(), await tools.fs.read_file.acall(path='a')]"},
		{"javascript", func(t *testing.T) (Runner, *procRunner) { js := newTestNode(t); return js, js.in.proc },
			"globalThis.x = (globalThis.x || 0) + 1; require('fs').writeFileSync('note.txt', 'hi'); return x",
			"globalThis.x = (globalThis.x || 0) + 1; return [x, require('fs').readFileSync('note.txt', 'utf8'), await tools.fs.read_file({path: 'a'})]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, p := tc.r(t)
			rl, _ := warmed(t, p)
			dir := t.TempDir()
			if res := runIn(t, r, dir, tc.write, Limits{}); res.Err != nil || string(res.Value) != "1" {
				t.Fatalf("first run: %s %v (output %q)", res.Value, res.Err, res.Output)
			}
			waitSpare(t, p, dir, Limits{})
			res := runIn(t, r, dir, tc.read, Limits{})
			want := `[1,"hi",{"args":{"path":"a"},"tool":"fs.read_file"}]`
			if res.Err != nil || !sameJSON(res.Value, want) {
				t.Fatalf("warm run: %s %v (output %q); want %s", res.Value, res.Err, res.Output, want)
			}
			if !rl.MustLast(t) {
				t.Error("the second run was not warm")
			}
		})
	}
}

// TestWarmSpareStartsAfterTheRun: what one run leaves behind (a process,
// a file in /tmp) is gone for the next, warm or not: the spare is a new
// sandbox, started after the run it follows had ended.
func TestWarmSpareStartsAfterTheRun(t *testing.T) {
	if !newTestLua(t).proc.sandboxed() {
		t.Skip("needs the sandbox (Linux user namespaces)")
	}
	py := newTestPython(t)
	rl, _ := warmed(t, py.in.proc)
	dir := t.TempDir()
	leave := `import os, time
open('/tmp/left', 'w').write('x')
if os.fork() == 0:
    os.setsid()
    time.sleep(60)
    os._exit(0)
return 1`
	if res := runIn(t, py, dir, leave, Limits{}); res.Err != nil {
		t.Fatalf("first run: %v (output %q)", res.Err, res.Output)
	}
	waitSpare(t, py.in.proc, dir, Limits{})
	look := `import os
return [os.path.exists('/tmp/left'), sorted(int(p) for p in os.listdir('/proc') if p.isdigit()) == [os.getpid()]]`
	res := runIn(t, py, dir, look, Limits{})
	if res.Err != nil || !sameJSON(res.Value, "[false, true]") {
		t.Fatalf("warm run saw the previous run: %s %v (output %q)", res.Value, res.Err, res.Output)
	}
	if !rl.MustLast(t) {
		t.Error("the second run was not warm")
	}
	if _, err := os.Stat(filepath.Join(dir, "left")); err == nil {
		t.Error("/tmp/left landed in the workspace")
	}
}

// TestWarmForgetDuringARun: a session that ends while one of its runs is
// in progress gets no spare when that run ends (its workspace is gone).
func TestWarmForgetDuringARun(t *testing.T) {
	l := newTestLua(t)
	warmed(t, l.proc)
	dir := t.TempDir()
	inCall, release := make(chan struct{}), make(chan struct{})
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		close(inCall)
		<-release
		return json.RawMessage(`1`), nil
	}}
	done := make(chan *Result)
	go func() {
		res, _ := l.Run(context.Background(), Request{Code: "return tools.a.b{}", Workdir: dir}, host)
		done <- res
	}()
	<-inCall
	l.Forget(dir)
	close(release)
	if res := <-done; res.Err != nil {
		t.Fatalf("run: %v", res.Err)
	}
	// A spare would be kept (and starting) by now: the run's end keeps it
	// before Run returns.
	l.proc.warm.mu.Lock()
	n, runs, forgot := len(l.proc.warm.byKey), len(l.proc.warm.runs), len(l.proc.warm.forgot)
	l.proc.warm.mu.Unlock()
	if n != 0 || runs != 0 || forgot != 0 {
		t.Errorf("after a run in a forgotten workdir: %d spares, %d runs, %d forgotten kept", n, runs, forgot)
	}
}

// TestWarmSpareWhoseCommandDiedIsNotUsed: a spare whose interpreter died
// while its init lives on (held here, as it would be for a moment) is not
// handed to a run.
func TestWarmSpareWhoseCommandDiedIsNotUsed(t *testing.T) {
	l := newTestLua(t)
	if !l.proc.sandboxed() {
		t.Skip("needs the sandbox's init")
	}
	rl, _ := warmed(t, l.proc)
	l.proc.linger = time.Second
	dir := t.TempDir()
	runIn(t, l, dir, "return 1", Limits{})
	sp := waitSpare(t, l.proc, dir, Limits{})
	var kids []byte
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); len(strings.Fields(string(kids))) != 1; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the spare's init has children %q, want its command", kids)
		}
		kids, _ = os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", sp.c.pid, sp.c.pid))
	}
	inner, _ := strconv.Atoi(strings.Fields(string(kids))[0])
	syscall.Kill(inner, syscall.SIGKILL)
	<-sp.c.init.settled()
	res := runIn(t, l, dir, "return 2", Limits{})
	if res.Err != nil || string(res.Value) != "2" {
		t.Fatalf("run after the spare's command died: %s %v", res.Value, res.Err)
	}
	if rl.MustLast(t) {
		t.Error("a spare whose command had died was used")
	}
}

// TestWarmSpareWaitsForItsDelay: the child of the next run does not start
// while the answer of the run that ended goes out (spareDelay), and a run
// that comes before the delay is over starts it at once and uses it.
func TestWarmSpareWaitsForItsDelay(t *testing.T) {
	old := spareDelay
	spareDelay = time.Hour
	t.Cleanup(func() { spareDelay = old })
	l := newTestLua(t)
	rl, pids := warmed(t, l.proc)
	dir := t.TempDir()
	if res := runIn(t, l, dir, "return 1", Limits{}); res.Err != nil {
		t.Fatalf("first run: %v", res.Err)
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(pids()); n != 1 {
		t.Fatalf("%d children started by one run; the next run's child should wait for its delay", n)
	}
	if res := runIn(t, l, dir, "return 2", Limits{}); res.Err != nil || string(res.Value) != "2" {
		t.Fatalf("second run: %s %v", res.Value, res.Err)
	}
	if !rl.MustLast(t) {
		t.Fatal("the second run did not use the spare kept for it")
	}
}

// TestWarmPrestart: a spare started ahead of a workdir's first run makes
// that run warm; without the Warm option Prestart starts nothing.
func TestWarmPrestart(t *testing.T) {
	l := newTestLua(t)
	rl, pids := warmed(t, l.proc)
	dir := t.TempDir()
	l.Prestart(Request{Workdir: dir})
	waitSpare(t, l.proc, dir, Limits{})
	if res := runIn(t, l, dir, "return 1", Limits{}); res.Err != nil {
		t.Fatalf("first run: %v", res.Err)
	}
	if !rl.MustLast(t) {
		t.Fatal("the first run after Prestart was not warm")
	}
	if n := len(pids()); n != 1 {
		t.Fatalf("%d children started; want the prestarted one alone", n)
	}

	cold := newTestLua(t)
	cold.proc.warm = newSpares(cold.proc, false)
	var started atomic.Int32
	cold.proc.onStart = func(int) { started.Add(1) }
	cold.Prestart(Request{Workdir: t.TempDir()})
	time.Sleep(100 * time.Millisecond)
	if n := started.Load(); n != 0 {
		t.Fatalf("Prestart without Warm started %d children", n)
	}
}
