package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/internal/testlog"
	"golang.org/x/sys/unix"
)

// runWatched runs code and returns the result and the child's pid, checking
// that nothing of the child is left once Run returns.
func runWatched(t *testing.T, ctx context.Context, code string, lim Limits, host Host) (*Result, time.Duration) {
	t.Helper()
	l := newTestLua(t)
	var w runWatch
	l.proc.onStart = w.started
	if host == nil {
		host = &fakeHost{}
	}
	start := time.Now()
	res, err := l.Run(ctx, Request{Code: code, Limits: lim}, host)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	w.assertGone(t)
	return res, took
}

// runWatch is what a test knows of a started child: its pid and, for a
// sandbox init, the PID namespace it is PID 1 of.
type runWatch struct {
	pid int
	ns  string // "pid:[…]"; "" without the sandbox
}

func (w *runWatch) started(pid int) {
	w.pid = pid
	if Detect().Namespaces {
		w.ns, _ = os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", pid))
	}
}

// assertGone checks, right after Run, that nothing of the run is left: no
// process in its PID namespace but the init, which may still be exiting
// and must be gone soon after; without the sandbox, no child and no
// process group.
func (w *runWatch) assertGone(t *testing.T) {
	t.Helper()
	if w.pid == 0 {
		t.Fatal("child never started")
	}
	if w.ns != "" {
		if left := inPIDNamespace(w.ns, w.pid); len(left) > 0 {
			t.Errorf("processes %v of the run's PID namespace still exist after Run", left)
		}
		deadline := time.Now().Add(testlog.Bound(time.Minute))
		for alive(w.pid) && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	if err := unix.Kill(w.pid, 0); !errors.Is(err, unix.ESRCH) && (w.ns == "" || alive(w.pid)) {
		t.Errorf("child %d still exists after Run (kill: %v)", w.pid, err)
	}
	if err := unix.Kill(-w.pid, 0); !errors.Is(err, unix.ESRCH) && (w.ns == "" || alive(w.pid)) {
		t.Errorf("process group %d still exists after Run (kill: %v)", w.pid, err)
	}
}

// inPIDNamespace lists the host pids of the processes in ns, but init,
// zombies included.
func inPIDNamespace(ns string, init int) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == init {
			continue
		}
		if link, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && link == ns {
			pids = append(pids, pid)
		}
	}
	return pids
}

func TestLuaTimeout(t *testing.T) {
	t.Parallel()
	res, took := runWatched(t, context.Background(), "while true do end", Limits{Timeout: time.Second}, nil)
	want := &ScriptError{Kind: "timeout", Msg: "timed out after 1s; make the script do less per run or raise sandbox.timeout"}
	if diff := cmp.Diff(want, res.Err); diff != "" {
		t.Errorf("Err (-want +got):\n%s", diff)
	}
	if took > testlog.Bound(time.Minute) { // the loop never ends: a hang
		t.Errorf("Run took %s for a 1s timeout", took)
	}
}

func TestLuaTimeoutDuringToolCall(t *testing.T) {
	t.Parallel()
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		<-ctx.Done() // a slow upstream: Run's end must cancel it
		return nil, ctx.Err()
	}}
	res, _ := runWatched(t, context.Background(), `tools.slow.op{}`, Limits{Timeout: time.Second}, host)
	if res.Err == nil || res.Err.Kind != "timeout" {
		t.Errorf("Err = %v, want a timeout", res.Err)
	}
}

func TestLuaCPULimit(t *testing.T) {
	t.Parallel()
	// The wall limit leaves a loaded machine room to spend the second of
	// CPU time: the CPU limit, not the wall limit, must end the run.
	res, took := runWatched(t, context.Background(), "local n = 0 while true do n = n + 1 end",
		Limits{CPUTime: time.Second, Timeout: testlog.Bound(2 * time.Minute)}, nil)
	want := &ScriptError{Kind: "cpu", Msg: "used more than 1s of CPU time; make the script do less per run or raise sandbox.cpu_time"}
	if diff := cmp.Diff(want, res.Err); diff != "" {
		t.Errorf("Err (-want +got):\n%s", diff)
	}
	t.Logf("Run took %s for a 1s CPU limit", took)
}

func TestLuaMemoryLimit(t *testing.T) {
	tests := []struct {
		name string
		code string
	}{
		{"string.rep", `local s = string.rep("x", 2^31) return #s`},
		{"table growth", `local t = {} local i = 0 while true do i = i + 1 t[i] = {i, i, i} end`},
		{"concat doubling", `local s = "x" while true do s = s .. s end`},
		{"table.concat", `local t = {} for i = 1, 64 do t[i] = string.rep("y", 2^22) end
			local parts = {} for i = 1, 64 do parts[i] = table.concat(t) end`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res, _ := runWatched(t, context.Background(), tt.code,
				Limits{MemoryBytes: 128 << 20, Timeout: 60 * time.Second}, nil)
			want := &ScriptError{Kind: "memory", Msg: "ran out of memory (limit 128 MiB); process the data in smaller pieces or raise sandbox.memory"}
			if diff := cmp.Diff(want, res.Err); diff != "" {
				t.Errorf("Err (-want +got):\n%s", diff)
			}
		})
	}
	// This process, the proxy's stand-in, is still here to check.
}

func TestLuaMemoryMinimum(t *testing.T) {
	t.Parallel()
	// The smallest limit still leaves the script room to work.
	res := runLuaTest(t, `local t = {} for i = 1, 1000 do t[i] = string.rep("z", 1000) .. i end return #t`,
		Limits{MemoryBytes: 1}, nil)
	if res.Err != nil || string(res.Value) != "1000" {
		t.Fatalf("got %s, %v", res.Value, res.Err)
	}
}

// TestChildMemoryLimit: the child lowers its RLIMIT_DATA to its start-up
// size plus MemoryBytes, whatever its start-up size.
func TestChildMemoryLimit(t *testing.T) {
	if raceOverhead > 0 {
		t.Skip("the race runtime's shadow memory changes the arithmetic")
	}
	t.Parallel()
	const mem = 200 << 20
	res, err := testRunner(t, "test-memlimit").run(context.Background(), Request{Limits: Limits{MemoryBytes: mem}}, &fakeHost{})
	if err != nil || res.Err != nil {
		t.Fatalf("%v, %v", err, res.Err)
	}
	var cur, max, vmData int64
	if _, err := fmt.Sscan(res.Output, &cur, &max, &vmData); err != nil {
		t.Fatalf("output %q: %v", res.Output, err)
	}
	if cur != max || cur-vmData > mem || cur-vmData < mem-16<<20 {
		t.Errorf("RLIMIT_DATA %d/%d with VmData %d: room %d MiB, want about %d MiB",
			cur, max, vmData, (cur-vmData)>>20, mem>>20)
	}
}

func TestLuaOutputCap(t *testing.T) {
	t.Parallel()
	res := runLuaTest(t, `for i = 1, 100 do print(string.rep("é", 10)) end return "done"`,
		Limits{OutputBytes: 105}, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	line := strings.Repeat("é", 10) + "\n" // 21 bytes
	kept := strings.Repeat(line, 5)        // 105 bytes exactly
	want := kept + "[output truncated: 1995 more bytes not shown; print less or raise sandbox.output]"
	if res.Output != want {
		t.Errorf("Output =\n%q\nwant\n%q", res.Output, want)
	}
	if string(res.Value) != `"done"` {
		t.Errorf("Value = %s: a capped output must not stop the script", res.Value)
	}

	// A cut inside a character backs up to its start.
	res = runLuaTest(t, `print(string.rep("é", 10))`, Limits{OutputBytes: 5}, nil)
	if want := "éé\n[output truncated: 17 more bytes not shown; print less or raise sandbox.output]"; res.Output != want {
		t.Errorf("Output = %q, want %q", res.Output, want)
	}
}

func TestLuaEndlessOutput(t *testing.T) {
	t.Parallel()
	res, took := runWatched(t, context.Background(), `while true do print(string.rep("x", 1000)) end`,
		Limits{OutputBytes: 1000, Timeout: 30 * time.Second}, nil)
	want := &ScriptError{Kind: "output", Msg: "printed more than 1 MiB and kept printing, so the run was stopped; print less or raise sandbox.output"}
	if diff := cmp.Diff(want, res.Err); diff != "" {
		t.Errorf("Err (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(res.Output, strings.Repeat("x", 1000)) || !strings.Contains(res.Output, "[output truncated: ") {
		t.Errorf("Output = %.200q…", res.Output)
	}
	if took > 10*time.Second {
		t.Errorf("took %s to stop endless output", took)
	}
}

func TestLuaMaxToolCalls(t *testing.T) {
	t.Parallel()
	host := &fakeHost{}
	res := runLuaTest(t, `
		local ok, failed = 0, {}
		for i = 1, 5 do
			local good, err = pcall(tools.x.y, {i = i})
			if good then ok = ok + 1 else failed[#failed + 1] = err end
		end
		return {ok = ok, failed = failed}`, Limits{MaxToolCalls: 3}, host)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	msg := "tool call limit of 3 per run reached; do more per call or raise sandbox.max_tool_calls"
	if want := fmt.Sprintf(`{"failed":[%q,%q],"ok":3}`, msg, msg); string(res.Value) != want {
		t.Errorf("Value = %s, want %s", res.Value, want)
	}
	if res.ToolCalls != 3 || len(host.received()) != 3 {
		t.Errorf("ToolCalls = %d, host saw %d; want 3", res.ToolCalls, len(host.received()))
	}
}

func TestLuaFrameLimit(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("r", 2<<20) + `"`)
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		if name == "big.result" {
			return big, nil
		}
		return json.RawMessage(`1`), nil
	}}
	lim := Limits{MaxFrameBytes: 1 << 20}
	tests := []struct {
		name  string
		code  string
		value string
		err   *ScriptError
	}{
		{"huge result", `local ok, err = pcall(tools.big.result, {}) return err`,
			`"the result of 2097172 bytes exceeds the 1 MiB frame limit; ask the tool for less (a filter, a page, fewer fields) or raise sandbox.max_frame"`, nil},
		{"huge argument", "local s = string.rep('a', 2^21)\nreturn tools.fs.write{data = s}", "",
			&ScriptError{Kind: "runtime", Line: 2, Msg: "the arguments to fs.write of 2097224 bytes exceed the 1 MiB frame limit; pass less data per call or raise sandbox.max_frame"}},
		{"huge return value", `return string.rep('v', 2^21)`, "",
			&ScriptError{Kind: "limit", Msg: "the return value of 2097154 bytes exceeds the 1 MiB frame limit; return less (print it, or summarize) or raise sandbox.max_frame"}},
		{"calls still work", `pcall(tools.big.result, {}) return tools.small.result{}`, "1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runLuaTest(t, tt.code, lim, host)
			if diff := cmp.Diff(tt.err, res.Err); diff != "" {
				t.Errorf("Err (-want +got):\n%s", diff)
			}
			if string(res.Value) != tt.value {
				t.Errorf("Value = %.300s, want %s", res.Value, tt.value)
			}
		})
	}

	res := runLuaTest(t, "return 1 --"+strings.Repeat("x", 1<<20), lim, nil)
	if res.Err == nil || res.Err.Kind != "limit" || !strings.Contains(res.Err.Msg, "over the 1 MiB frame limit") {
		t.Errorf("oversized script: Err = %v", res.Err)
	}
}

func TestLuaCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, took := runWatched(t, ctx, "while true do end", Limits{Timeout: 30 * time.Second}, nil)
	want := &ScriptError{Kind: "killed", Msg: "run cancelled: context deadline exceeded"}
	if diff := cmp.Diff(want, res.Err); diff != "" {
		t.Errorf("Err (-want +got):\n%s", diff)
	}
	if took > testlog.Bound(time.Minute) { // the loop never ends: a hang
		t.Errorf("cancellation took %s", took)
	}
}

func TestChildLimits(t *testing.T) {
	l := newTestLua(t)
	var limits, environ, stat string
	l.proc.onStart = func(pid int) {
		read := func(name string) string {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, name))
			if err != nil {
				t.Errorf("read /proc/%d/%s: %v", pid, name, err)
			}
			return string(b)
		}
		limits, environ, stat = read("limits"), read("environ"), read("stat")
	}
	lim := Limits{CPUTime: 1500 * time.Millisecond, MemoryBytes: 256 << 20, OpenFiles: 32, FileBytes: 1 << 20}
	if _, err := l.Run(context.Background(), Request{Code: "return 1", Limits: lim}, &fakeHost{}); err != nil {
		t.Fatal(err)
	}
	want := wantChildEnviron()
	if Detect().Namespaces {
		want = strings.Join(append(raceEnv, ""), "\x00") // the init's: the inner command's is checked by TestChildEnvironment
		if len(raceEnv) == 0 {
			want = ""
		}
	}
	if environ != want {
		t.Errorf("environ = %q, want %q", environ, want)
	}
	for _, want := range []string{
		"Max cpu time              2                    3                    seconds",
		fmt.Sprintf("Max data size             %-20d %-20d bytes", (256<<20)+startupAllowance+raceOverhead, (256<<20)+startupAllowance+raceOverhead),
		"Max open files            32                   32                   files",
		"Max file size             1048576              1048576              bytes",
		"Max core file size        0                    0                    bytes",
	} {
		if !strings.Contains(limits, want) {
			t.Errorf("/proc/pid/limits lacks %q:\n%s", want, limits)
		}
	}
	// Field 5 of stat is the process group: the child leads its own.
	if f := strings.Fields(stat[strings.LastIndex(stat, ")")+1:]); len(f) < 3 || f[2] != strings.Fields(stat)[0] {
		t.Errorf("child is not its own process group leader: %s", stat)
	}
}
