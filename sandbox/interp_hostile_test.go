package sandbox

import (
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// TestInterpretersContained: what the parent enforces for Lua it enforces
// for an interpreter child too: a script writing to the bridge's fd
// itself, flooding calls, spinning on the CPU or printing forever is
// stopped with the right kind, and the runner serves the next run.
func TestInterpretersContained(t *testing.T) {
	cpu := Limits{CPUTime: time.Second, Timeout: testlog.Bound(2 * time.Minute)} // the CPU limit, not the wall limit, must end it
	t.Run("python", func(t *testing.T) {
		runCases(t, newTestPython(t), []interpCase{
			{name: "garbage on the bridge", code: "import os\nos.write(3, b'not json\\n')\nimport time\ntime.sleep(5)",
				err: &ScriptError{Kind: "killed"}, errSub: "sandbox protocol error: malformed bridge frame"},
			{name: "unknown method", code: "import os\nos.write(3, b'{\"id\":1,\"method\":\"exec\"}\\n')\nimport time\ntime.sleep(5)",
				err: &ScriptError{Kind: "killed"}, errSub: `unknown bridge method "exec"`},
			{name: "forged done", code: "import os\nos.write(3, b'{\"method\":\"done\",\"params\":{\"value\":42}}\\n')\nreturn 1", value: "42"},
			{name: "call flood", lim: Limits{MaxToolCalls: 5}, code: "while True:\n    try:\n        tools.s.t()\n    except ToolError:\n        pass",
				err: &ScriptError{Kind: "limit"}, errSub: "kept calling tools past the tool call limit of 5"},
			{name: "cpu spin", lim: cpu, code: "while True:\n    pass", err: &ScriptError{Kind: "cpu"}, errSub: "used more than 1s of CPU time"},
		})
	})
	t.Run("javascript", func(t *testing.T) {
		runCases(t, newTestNode(t), []interpCase{
			{name: "garbage on the bridge", code: "require('fs').writeSync(3, 'not json\\n')\nawait new Promise((r) => setTimeout(r, 5000))",
				err: &ScriptError{Kind: "killed"}, errSub: "sandbox protocol error: malformed bridge frame"},
			{name: "call flood", lim: Limits{MaxToolCalls: 5}, code: "for (;;) { try { await tools.s.t() } catch (e) {} }",
				err: &ScriptError{Kind: "limit"}, errSub: "kept calling tools past the tool call limit of 5"},
			{name: "parallel flood", lim: Limits{MaxToolCalls: 5}, code: "await Promise.allSettled([...Array(500).keys()].map(() => tools.s.t()))",
				err: &ScriptError{Kind: "limit"}, errSub: "kept calling tools past the tool call limit of 5"},
			{name: "cpu spin", lim: cpu, code: "for (;;) {}", err: &ScriptError{Kind: "cpu"}, errSub: "used more than 1s of CPU time"},
		})
	})
}
