package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// interpCase is one script with what it must print and return, or the
// error it must end with.
type interpCase struct {
	name   string
	code   string
	output string       // exact, or a prefix when it ends with "[output truncated: "; "" for none
	value  string       // JSON; "" for none
	err    *ScriptError // nil for success
	errSub string       // when err is set and errSub too: Msg must contain it (Msg is not compared)
	host   func() *fakeHost
	lim    Limits
}

var (
	testPythonOnce sync.Once
	testPython     *Python
	testPythonErr  error
	testNodeOnce   sync.Once
	testNode       *JavaScript
	testNodeErr    error
)

// newTestPython is the Python runner; the test is skipped when python3 is
// missing, and fails when CI=true or TOOLFOLD_REQUIRE_INTERPRETERS is set.
func newTestPython(t testing.TB) *Python {
	t.Helper()
	testPythonOnce.Do(func() { testPython, testPythonErr = NewPython(nil) })
	if testPythonErr != nil {
		skipOrFail(t, testPythonErr)
	}
	return &Python{in: withTestLogger(t, testPython.in)}
}

// newTestNode is the JavaScript runner, skipped like newTestPython.
func newTestNode(t testing.TB) *JavaScript {
	t.Helper()
	testNodeOnce.Do(func() { testNode, testNodeErr = NewJavaScript(nil) })
	if testNodeErr != nil {
		skipOrFail(t, testNodeErr)
	}
	return &JavaScript{in: withTestLogger(t, testNode.in)}
}

// withTestLogger is a copy of in logging to t; benchmarks keep the
// discarding logger.
func withTestLogger(t testing.TB, in *interpreter) *interpreter {
	c := *in
	proc := *c.proc
	if _, ok := t.(*testing.B); !ok {
		proc.log = testLogger(t)
	}
	c.proc = &proc
	return &c
}

func skipOrFail(t testing.TB, err error) {
	t.Helper()
	if os.Getenv("TOOLFOLD_REQUIRE_INTERPRETERS") != "" || os.Getenv("CI") == "true" {
		t.Fatal(err)
	}
	t.Skip(err)
}

// runCases runs each case with r and checks it.
func runCases(t *testing.T, r Runner, cases []interpCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			host := &fakeHost{}
			if tt.host != nil {
				host = tt.host()
			}
			res, err := r.Run(context.Background(), Request{Code: tt.code, Limits: tt.lim}, host)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			checkResult(t, res, tt)
		})
	}
}

func checkResult(t *testing.T, res *Result, tt interpCase) {
	t.Helper()
	if cut := strings.Index(tt.output, "[output truncated: "); cut >= 0 && strings.HasPrefix(res.Output, tt.output) {
		// the count after the notice depends on timing
	} else if res.Output != tt.output {
		t.Errorf("Output = %q, want %q", res.Output, tt.output)
	}
	if string(res.Value) != tt.value {
		t.Errorf("Value = %s, want %s", res.Value, tt.value)
	}
	switch {
	case tt.err == nil && res.Err != nil:
		t.Errorf("Err = %v, want none", res.Err)
	case tt.err != nil && res.Err == nil:
		t.Errorf("Err = nil, want %v", tt.err)
	case tt.err != nil:
		if res.Err.Kind != tt.err.Kind || res.Err.Line != tt.err.Line {
			t.Errorf("Err = %s %v, want kind %s line %d", res.Err.Kind, res.Err, tt.err.Kind, tt.err.Line)
		}
		if tt.errSub != "" && !strings.Contains(res.Err.Msg, tt.errSub) {
			t.Errorf("Err.Msg = %q, want it to contain %q", res.Err.Msg, tt.errSub)
		} else if tt.errSub == "" && res.Err.Msg != tt.err.Msg {
			t.Errorf("Err.Msg = %q, want %q", res.Err.Msg, tt.err.Msg)
		}
	}
}

// failingHost fails calls to tools named "bad.*" with a ToolError.
func failingHost() *fakeHost {
	return &fakeHost{call: func(_ context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		if strings.HasPrefix(name, "bad.") {
			return nil, &ToolError{Tool: name, Msg: name + " failed: no such file"}
		}
		return json.RawMessage(`{"tool":"` + name + `","args":` + string(args) + `}`), nil
	}}
}

// bigHost answers every call with a 2000-byte string.
func bigHost() *fakeHost {
	return &fakeHost{call: func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
		return json.RawMessage(`"` + strings.Repeat("x", 2000) + `"`), nil
	}}
}

// secretEnv is set in the tests' environment, which the script must not see.
const secretEnv = "TOOLFOLD_TEST_SECRET"

// plantedWorkdir is a workspace holding json.py and a fake node module
// that would hijack imports if the working directory were searched.
func plantedWorkdir(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "json.py"), []byte("raise SystemExit('hijacked')\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ast.py"), []byte("raise SystemExit('hijacked')\n"), 0o644)
	os.MkdirAll(filepath.Join(dir, "node_modules", "net"), 0o755)
	os.WriteFile(filepath.Join(dir, "node_modules", "net", "index.js"), []byte("process.exit(9)\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "node_modules", "lodash.js"), []byte("module.exports = 'hijacked'\n"), 0o644)
	return dir
}
