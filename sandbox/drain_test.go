package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// Pending work at the end of a script's code (node's timers and I/O,
// Python's non-daemon threads) runs before the run ends, as node and
// python would wait for it, bounded by the run's limits.

func TestJavaScriptDrain(t *testing.T) {
	js := newTestNode(t)
	runCases(t, js, []interpCase{
		{name: "late timer", code: `setTimeout(() => console.log("late"), 200)
console.log("early")
return 1`, output: "early\nlate\n", value: "1"},
		{name: "value as returned", code: `const o = {n: 1}
setTimeout(() => { o.n = 2 }, 20)
return o`, value: `{"n":1}`},
		{name: "promise chain", code: `(async () => { await null; await null; console.log("chained") })()`, output: "chained\n"},
		{name: "tool call in a timer", code: `setTimeout(async () => {
  const r = await tools.s.t({i: 7})
  console.log(r.args.i)
  setTimeout(() => console.log("after"), 10)
}, 20)`, output: "7\nafter\n"},
		{name: "unref timer not waited", code: `setTimeout(() => console.log("never"), 5000).unref()
return 2`, value: "2"},
		{name: "error in a timer", code: `setTimeout(() => { throw new Error("late boom") }, 10)
return 3`, err: &ScriptError{Kind: "runtime", Line: 1, Msg: "Error: late boom"}},
		{name: "process.exit in a timer keeps the value", code: `setTimeout(() => process.exit(0), 10)
return 4`, value: "4"},
	})
}

func TestJavaScriptDrainTimeout(t *testing.T) {
	js := newTestNode(t)
	checkPendingStopped(t, js, `setInterval(() => {}, 50)
console.log("started")
return 1`)
}

func TestPythonDrain(t *testing.T) {
	py := newTestPython(t)
	runCases(t, py, []interpCase{
		{name: "non-daemon thread", code: `import threading, time
def late():
    time.sleep(0.2)
    print("late")
threading.Thread(target=late).start()
print("early")
return 1`, output: "early\nlate\n", value: "1"},
		{name: "tool call in a thread", code: `import threading
def work():
    r = tools.s.t(i=7)
    print(r["args"]["i"])
threading.Thread(target=work).start()`, output: "7\n"},
		{name: "executor not shut down", code: `import time
from concurrent.futures import ThreadPoolExecutor
ex = ThreadPoolExecutor(2)
ex.submit(lambda: (time.sleep(0.1), print("pooled")))`, output: "pooled\n"},
		{name: "exception in a thread", code: `import threading
def boom():
    raise ValueError("x")
threading.Thread(target=boom).start()
return 5`, value: "5"},
	})
}

func TestPythonDaemonThreadNotWaited(t *testing.T) {
	py := newTestPython(t)
	start := time.Now()
	res, err := py.Run(context.Background(), Request{Code: `import threading, time
def late():
    time.sleep(20)
    print("late")
threading.Thread(target=late, daemon=True).start()
return 1`}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	// A run that waited for the daemon thread would have printed "late".
	if res.Err != nil || string(res.Value) != "1" || res.Output != "" || res.PendingStopped {
		t.Fatalf("Value %s, Output %q, Err %v, PendingStopped %v; want 1 and nothing printed", res.Value, res.Output, res.Err, res.PendingStopped)
	}
	t.Logf("run took %s", time.Since(start))
}

func TestPythonDrainTimeout(t *testing.T) {
	py := newTestPython(t)
	checkPendingStopped(t, py, `import threading, time
def spin():
    while True:
        time.sleep(0.05)
threading.Thread(target=spin).start()
print("started")
return 1`)
}

// checkPendingStopped runs code, whose main part prints "started" and
// leaves work that never ends, and checks it ends at the wall limit with
// the timeout error and PendingStopped.
func checkPendingStopped(t *testing.T, r Runner, code string) {
	t.Helper()
	start := time.Now()
	res, err := r.Run(context.Background(), Request{Code: code, Limits: Limits{Timeout: 2 * time.Second}}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Kind != "timeout" || !strings.Contains(res.Err.Msg, "sandbox.timeout") {
		t.Fatalf("Err = %v, want the timeout error", res.Err)
	}
	if !res.PendingStopped {
		t.Error("PendingStopped = false, want true")
	}
	if res.Output != "started\n" {
		t.Errorf("Output = %q, want %q", res.Output, "started\n")
	}
	// Not before the wall limit; after it only as late as a loaded machine
	// makes it (the left work never ends by itself).
	if d := time.Since(start); d < 2*time.Second || d > testlog.Bound(time.Minute) {
		t.Errorf("run took %s, want it ended at the 2s wall limit", d)
	}
}

// TestDrainNotPendingOnPlainTimeout: a script whose own code is still
// running at the limit had no pending work stopped.
func TestDrainNotPendingOnPlainTimeout(t *testing.T) {
	js := newTestNode(t)
	res, err := js.Run(context.Background(), Request{Code: "setTimeout(() => {}, 10)\nfor (;;) {}", Limits: Limits{Timeout: 500 * time.Millisecond}}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Kind != "timeout" || res.PendingStopped {
		t.Fatalf("Err = %v, PendingStopped %v; want a timeout without pending work", res.Err, res.PendingStopped)
	}
}

// TestDrainWarm: a run that waited for pending work is followed by a warm
// run, and one whose pending work was stopped too; each child runs once.
func TestDrainWarm(t *testing.T) {
	for _, tt := range []struct {
		lang, late, spin string
	}{
		{"javascript", `setTimeout(() => console.log("late"), 50)`, `setInterval(() => {}, 50)`},
		{"python", "import threading, time\nthreading.Thread(target=lambda: (time.sleep(0.05), print('late'))).start()",
			"import threading, time\nthreading.Thread(target=lambda: [time.sleep(0.05) for _ in iter(int, 1)]).start()"},
	} {
		t.Run(tt.lang, func(t *testing.T) {
			var in *interpreter
			if tt.lang == "python" {
				in = newTestPython(t).in
			} else {
				in = newTestNode(t).in
			}
			rl, _ := warmed(t, in.proc)
			dir := t.TempDir()
			lim := Limits{Timeout: 10 * time.Second} // node starting on a loaded machine counts toward it
			run := func(code string) *Result {
				res, err := in.run(context.Background(), Request{Code: code, Workdir: dir, Limits: lim}, &fakeHost{})
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			run("1")
			if res := run(tt.spin); res.Err == nil || res.Err.Kind != "timeout" || !res.PendingStopped {
				t.Fatalf("spin: Err %v PendingStopped %v", res.Err, res.PendingStopped)
			}
			if !rl.MustLast(t) {
				t.Error("the spinning run was not warm")
			}
			if res := run(tt.late); res.Err != nil || res.Output != "late\n" {
				t.Fatalf("late: Output %q Err %v", res.Output, res.Err)
			}
			if !rl.MustLast(t) {
				t.Error("the run after the stopped one was not warm")
			}
		})
	}
}
