package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/internal/testlog"
	"golang.org/x/sys/unix"
)

// childHang is how long a misbehaving test child sleeps after its misdeed:
// far past testlog.Bound(time.Minute), so a run that ends within that bound
// killed it rather than waited for it.
const childHang = 10 * time.Minute

// Test-only child runtimes: they run inside the re-executed test binary and
// misbehave on the bridge the way a hostile interpreter could.
func init() {
	childRuntimes["test-bigframe"] = func(b *childBridge, p *runParams) doneParams {
		b.w.writeRaw([]byte(`{"id":1,"method":"call","params":{"name":"x.y","args":{"pad":"` +
			strings.Repeat("x", p.Limits.MaxFrameBytes) + `"}}}`))
		time.Sleep(childHang)
		return doneParams{}
	}
	childRuntimes["test-notjson"] = func(b *childBridge, _ *runParams) doneParams {
		b.w.writeRaw([]byte("hello parent"))
		time.Sleep(childHang)
		return doneParams{}
	}
	childRuntimes["test-unknown"] = func(b *childBridge, _ *runParams) doneParams {
		b.w.writeRaw([]byte(`{"id":1,"method":"exec","params":{"cmd":"sh"}}`))
		time.Sleep(childHang)
		return doneParams{}
	}
	childRuntimes["test-env"] = func(b *childBridge, _ *runParams) doneParams {
		env, _ := os.ReadFile("/proc/self/environ")
		wd, _ := os.Getwd()
		fds, _ := os.ReadDir("/proc/self/fd")
		stdin, _ := os.Readlink("/proc/self/fd/0")
		os.WriteFile("marker", []byte("x"), 0o644)
		fmt.Printf("env=%q\nwd=%s\nfds=%d\nstdin=%s\n", env, wd, len(fds), stdin)
		return doneParams{}
	}
	childRuntimes["test-memlimit"] = func(b *childBridge, _ *runParams) doneParams {
		var rl unix.Rlimit
		unix.Getrlimit(unix.RLIMIT_DATA, &rl)
		statm, _ := os.Open("/proc/self/statm")
		data, _ := dataBytes(statm)
		fmt.Println(rl.Cur, rl.Max, data)
		return doneParams{}
	}
	// test-callflood sends calls as fast as it can and never reads a
	// response. With the code "fill" it first sends one call and waits
	// until the parent has filled the response pipe (the parent's writer
	// is then blocked), so the flood meets a blocked writer.
	childRuntimes["test-callflood"] = func(b *childBridge, p *runParams) doneParams {
		code := p.Code
		id := int64(1)
		send := func() {
			if err := b.w.write(&frame{ID: id, Method: methodCall, Params: mustJSON(callParams{Name: "x.y"})}); err != nil {
				b.fatal(err)
			}
			id++
		}
		if code == "fill" {
			send()
			if err := waitPipeFull(childBridgeInFD); err != nil {
				b.fatal(err)
			}
		}
		for {
			send()
		}
	}
	// test-reuseid makes the code's number of calls one after the other,
	// all with id 1: ids need only be unique while in flight.
	childRuntimes["test-reuseid"] = func(b *childBridge, p *runParams) doneParams {
		code := p.Code
		var n int
		fmt.Sscan(code, &n)
		for range n {
			b.nextID = 0
			if _, err := b.request(methodCall, callParams{Name: "x.y"}, "args"); err != nil {
				return doneParams{Error: &wireError{Kind: "runtime", Msg: err.Error()}}
			}
		}
		return doneParams{Value: mustJSON(n)}
	}
	// test-concurrent sends the code's number of calls at once, then reads
	// every response: a future Python or JavaScript prelude does this.
	childRuntimes["test-concurrent"] = func(b *childBridge, p *runParams) doneParams {
		code := p.Code
		var n int
		fmt.Sscan(code, &n)
		for id := 1; id <= n; id++ {
			b.w.write(&frame{ID: int64(id), Method: methodCall, Params: mustJSON(callParams{Name: "x.y", Args: json.RawMessage("{}")})})
		}
		got := 0
		for range n {
			line, err := b.r.next()
			if err != nil {
				return doneParams{Error: &wireError{Kind: "runtime", Msg: err.Error()}}
			}
			var f frame
			json.Unmarshal(line, &f)
			if f.Error == nil {
				got++
			}
		}
		return doneParams{Value: mustJSON(got)}
	}
}

func TestHostileChild(t *testing.T) {
	tests := []struct {
		language string
		kind     string
		msg      string
	}{
		{"test-bigframe", "limit", "the script sent a bridge frame over the 1 MiB frame limit; pass less data per tool call or raise sandbox.max_frame"},
		{"test-notjson", "killed", "sandbox protocol error: malformed bridge frame: invalid character 'h' looking for beginning of value"},
		{"test-unknown", "killed", `sandbox protocol error: unknown bridge method "exec"`},
	}
	for _, tt := range tests {
		t.Run(tt.language, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			res, err := testRunner(t, tt.language).run(context.Background(),
				Request{Limits: Limits{MaxFrameBytes: 1 << 20}}, &fakeHost{})
			if err != nil {
				t.Fatal(err)
			}
			want := &ScriptError{Kind: tt.kind, Msg: tt.msg}
			if diff := cmp.Diff(want, res.Err); diff != "" {
				t.Errorf("Err (-want +got):\n%s", diff)
			}
			if d := time.Since(start); d > testlog.Bound(time.Minute) {
				t.Errorf("took %s: the child was not killed, but waited for", d)
			}
		})
	}
}

// wantChildEnviron is /proc/PID/environ of a child: the fixed variables
// only (plus the race runtime's setting in race builds).
func wantChildEnviron() string {
	env := "LANG=C.UTF-8\x00PATH=/usr/bin:/bin\x00"
	for _, kv := range raceEnv {
		env += kv + "\x00"
	}
	return env
}

func TestChildEnvironment(t *testing.T) {
	t.Setenv("TOOLFOLD_TEST_SECRET", "sk-do-not-leak")
	res, err := testRunner(t, "test-env").run(context.Background(), Request{}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatalf("Err = %v; output %q", res.Err, res.Output)
	}
	out := res.Output
	if want := fmt.Sprintf("env=%q", wantChildEnviron()); !strings.Contains(out, want+"\n") {
		t.Errorf("child environment: output %q does not contain %s", out, want)
	}
	if !strings.Contains(out, "stdin=/dev/null\n") {
		t.Errorf("stdin is not /dev/null: %q", out)
	}
	wd := strings.TrimPrefix(strings.Split(out, "\n")[1], "wd=")
	sandboxed := Detect().Namespaces
	if sandboxed && wd != SandboxWorkspace {
		t.Errorf("working directory %q in the sandbox, want %s", wd, SandboxWorkspace)
	}
	if !sandboxed && !strings.Contains(wd, "toolfold-run-") {
		t.Errorf("working directory %q is not a fresh run directory", wd)
	}
	if _, err := os.Stat(wd); !os.IsNotExist(err) {
		t.Errorf("run directory %s was not removed: %v", wd, err)
	}

	dir := t.TempDir()
	res, err = testRunner(t, "test-env").run(context.Background(), Request{Workdir: dir}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "marker")); err != nil {
		t.Errorf("Workdir %s not used: %v; output %q", dir, err, res.Output)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("caller's Workdir was removed: %v", err)
	}
}

func TestHostMisbehaves(t *testing.T) {
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		switch name {
		case "x.panic":
			panic("host bug")
		case "x.invalid":
			return json.RawMessage(`{"unterminated`), nil
		case "x.empty":
			return nil, &ToolError{Tool: name}
		}
		return nil, nil // no result at all: the script sees nil
	}}
	res := runLuaTest(t, `
		local out = {}
		for _, name in ipairs({"panic", "invalid", "empty"}) do
			local ok, err = pcall(call, "x." .. name, {})
			out[name] = err
		end
		out.none = type(tools.x.none{})
		return out`, Limits{}, host)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	want := map[string]string{
		"panic":   "call: internal error in the proxy (details are in its log)",
		"invalid": "the tool returned invalid JSON",
		"empty":   "x.empty: the tool failed without a message",
		"none":    "nil",
	}
	var got map[string]string
	json.Unmarshal(res.Value, &got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestConcurrentCalls(t *testing.T) {
	var inflight, peak atomic.Int32
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		n := inflight.Add(1)
		defer inflight.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(30 * time.Millisecond)
		return json.RawMessage(`true`), nil
	}}
	res, err := testRunner(t, "test-concurrent").run(context.Background(),
		Request{Code: "12", Limits: Limits{MaxConcurrency: 3}}, host)
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || string(res.Value) != "12" {
		t.Fatalf("got value %s, err %v; want 12 answered calls", res.Value, res.Err)
	}
	if p := peak.Load(); p != 3 {
		t.Errorf("peak concurrent host calls = %d, want 3 (MaxConcurrency)", p)
	}
	if res.ToolCalls != 12 {
		t.Errorf("ToolCalls = %d, want 12", res.ToolCalls)
	}
}

// TestBridgeFlood: a child that sends calls without end and never reads a
// response costs the parent a bounded number of goroutines (and so of
// memory), and is stopped: killed past the call limit, or by the timeout
// while the parent's response writes are blocked on the full pipe.
func TestBridgeFlood(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("r", 80<<10) + `"`) // more than a pipe holds
	// 10s: the child's start counts toward it, which took over a second on
	// a loaded CI machine before the flood began.
	timeout := &ScriptError{Kind: "timeout", Msg: "timed out after 10s; make the script do less per run or raise sandbox.timeout"}
	tests := []struct {
		name      string
		code      string // for test-callflood
		lim       Limits
		result    json.RawMessage
		want      *ScriptError
		toolCalls int // 0: not checked
	}{
		{"past the call limit", "", Limits{MaxToolCalls: 1, Timeout: testlog.Bound(2 * time.Minute)}, nil,
			&ScriptError{Kind: "limit", Msg: "the script kept calling tools past the tool call limit of 1 per run (100 more calls refused); " +
				"stop calling once a call fails with the limit error, do more per call or raise sandbox.max_tool_calls"}, 1},
		{"within the limit, responses blocked", "", Limits{MaxToolCalls: 1 << 20, MaxConcurrency: 4, Timeout: 10 * time.Second}, big,
			timeout, 0},
		{"refusal blocked", "fill", Limits{MaxToolCalls: 1, Timeout: 10 * time.Second}, big, timeout, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Not parallel: the count is the whole process's.
			host := &fakeHost{call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
				if tt.result != nil {
					return tt.result, nil
				}
				return json.RawMessage(`1`), nil
			}}
			base := runtime.NumGoroutine()
			var peak atomic.Int64
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					peak.Store(max(peak.Load(), int64(runtime.NumGoroutine())))
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
					}
				}
			}()
			res, err := testRunner(t, "test-callflood").run(context.Background(), Request{Code: tt.code, Limits: tt.lim}, host)
			close(stop)
			<-sampled
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Err); diff != "" {
				t.Errorf("Err (-want +got):\n%s", diff)
			}
			if tt.toolCalls != 0 && res.ToolCalls != tt.toolCalls {
				t.Errorf("ToolCalls = %d, want %d", res.ToolCalls, tt.toolCalls)
			}
			// A run needs a handful of goroutines plus one per admitted
			// request in flight (MaxConcurrency).
			const bound = 50
			t.Logf("goroutines: %d before the run, peak %d", base, peak.Load())
			if grew := peak.Load() - int64(base); grew > bound {
				t.Errorf("the parent's goroutines grew by %d during the run, want at most %d", grew, bound)
			}
		})
	}
}

func TestRequestIDReuse(t *testing.T) {
	res, err := testRunner(t, "test-reuseid").run(context.Background(), Request{Code: "200"}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || string(res.Value) != "200" {
		t.Errorf("got value %s, err %v; want 200 calls answered", res.Value, res.Err)
	}
}
