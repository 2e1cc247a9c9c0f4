package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// TestMain makes the test binary its own sandbox child: the runners under
// test re-execute os.Args[0] with ChildArg, as toolfold re-executes itself.
func TestMain(m *testing.M) {
	if IsChild() {
		ChildMain()
	}
	if os.Getenv(parentModeEnv) != "" {
		parentMode() // see TestChildDiesWithParent
	}
	code := m.Run()
	if code == 0 {
		if leaked := leakedGoroutines(); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines left running after the tests:\n%s\n", leaked)
			code = 1
		}
	}
	os.Exit(code)
}

// leakedGoroutines returns the stacks of this package's goroutines still
// running, after giving them a moment to finish.
func leakedGoroutines() string {
	var leaked []string
	for deadline := time.Now().Add(testlog.Bound(30 * time.Second)); time.Now().Before(deadline); {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		leaked = leaked[:0]
		for g := range strings.SplitSeq(string(buf), "\n\n") {
			if strings.Contains(g, "toolfold/sandbox.") && !strings.Contains(g, "sandbox.TestMain") &&
				!strings.Contains(g, "sandbox.leakedGoroutines") {
				leaked = append(leaked, g)
			}
		}
		if len(leaked) == 0 {
			return ""
		}
		time.Sleep(20 * time.Millisecond)
	}
	return strings.Join(leaked, "\n\n")
}

// hostCall is one call the fake host received.
type hostCall struct {
	Name string
	Args string
}

// fakeHost records calls; call and search, when set, answer them. By
// default a call returns {"tool": name, "args": args}.
type fakeHost struct {
	call   func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
	search func(ctx context.Context, query, detail string, limit int) (string, error)

	mu    sync.Mutex
	calls []hostCall
}

func (h *fakeHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	h.mu.Lock()
	h.calls = append(h.calls, hostCall{name, string(args)})
	h.mu.Unlock()
	if h.call != nil {
		return h.call(ctx, name, args)
	}
	return json.RawMessage(fmt.Sprintf(`{"tool":%q,"args":%s}`, name, args)), nil
}

func (h *fakeHost) Search(ctx context.Context, query, detail string, limit int) (string, error) {
	if h.search != nil {
		return h.search(ctx, query, detail, limit)
	}
	return fmt.Sprintf("search %q detail=%q limit=%d", query, detail, limit), nil
}

func (h *fakeHost) received() []hostCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]hostCall(nil), h.calls...)
}

// testLogger writes the runner's log lines to the test log.
func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// newTestLua is the Lua runner re-executing the test binary.
func newTestLua(t testing.TB) *Lua {
	return NewLua(&LuaOptions{Exe: testBinary(), Logger: testLogger(t)})
}

// runLuaTest runs code with lim against host (a fresh fakeHost when nil).
func runLuaTest(t *testing.T, code string, lim Limits, host Host) *Result {
	t.Helper()
	if host == nil {
		host = &fakeHost{}
	}
	res, err := newTestLua(t).Run(context.Background(), Request{Code: code, Limits: lim}, host)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// testBinary is this test binary, which TestMain makes a sandbox child when
// it is started with ChildArg.
func testBinary() string {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return exe
}

// testExe is this test binary, opened and vetted as a runner's binary.
func testExe(t testing.TB) *exeFile {
	t.Helper()
	bin, err := openExe(testBinary())
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// testRunner runs one of the test-only child runtimes below.
func testRunner(t testing.TB, language string) *procRunner {
	return &procRunner{exe: testBinary(), bin: testExe(t), language: language, log: testLogger(t)}
}
