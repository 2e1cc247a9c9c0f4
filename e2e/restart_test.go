package e2e

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

// backWithin is how soon a crashed upstream must serve again: a hang guard,
// room for a restart with backoff of a node server on a loaded machine.
var backWithin = testlog.Bound(time.Minute)

// killPID kills pid and waits until it is no longer running.
func killPID(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", pid, err)
	}
	for deadline := time.Now().Add(exitGrace); pidAlive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still running after SIGKILL", pid)
		}
	}
}

// TestUpstreamRestart kills the memory server between calls: the next calls fail
// with an error saying it is unavailable and naming it (or already succeed), and
// within backWithin it is back, its data intact (it is on disk).
func TestUpstreamRestart(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	pidFile := filepath.Join(t.TempDir(), "memory.pid")
	ups["memory"] = withPIDFile(t, ups["memory"], pidFile)
	cs := startStdio(t, writeConfig(t, configYAML(ups)))
	scriptOK(t, cs, `tools.memory.create_entities{entities = {
  {name = "survivor", entityType = "test", observations = {"outlives a crash"}},
}}`)
	pid := readPID(t, pidFile, 0, startTimeout)
	killPID(t, pid)
	killed := time.Now()

	const count = "return #tools.memory.read_graph{}.entities"
	failures := 0
	for {
		ctx := testCtx(t, backWithin+5*time.Second)
		res := callToolCtx(ctx, t, cs, "run_script", map[string]any{"code": count})
		if !res.IsError {
			var n int
			if returned(t, text(res), &n); n != 1 {
				t.Errorf("after the restart the graph has %d entities, want 1:\n%s", n, text(res))
			}
			break
		}
		failures++
		checkUnavailable(t, text(res), "memory")
		if time.Since(killed) > backWithin {
			t.Fatalf("memory not back %v after the crash; last answer:\n%s", backWithin, text(res))
		}
		time.Sleep(250 * time.Millisecond)
	}
	restarted := readPID(t, pidFile, pid, startTimeout)
	t.Logf("memory (pid %d) killed; back as pid %d after %v, %d failed calls meanwhile",
		pid, restarted, time.Since(killed).Round(time.Millisecond), failures)
	if isZombie(pid) {
		t.Errorf("the killed upstream (pid %d) was never reaped: it is a zombie", pid)
	}
}

// TestUpstreamCrashMidCall kills server-everything during a 30 s tool call: the
// call must fail promptly with an error saying the server is unavailable or
// disconnected and naming it, not wait it out.
func TestUpstreamCrashMidCall(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	pidFile := filepath.Join(t.TempDir(), "everything.pid")
	ups["everything"] = withPIDFile(t, ups["everything"], pidFile)
	cs := startStdio(t, writeConfig(t, configYAML(ups, "timeout: 30m")))
	pid := readPID(t, pidFile, 0, startTimeout)

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	ctx := testCtx(t, callTimeout) // well under the 20 minutes the call would take
	go func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{
			"code": "return tools.everything.trigger_long_running_operation{duration = 1200, steps = 3}",
		}})
		done <- answer{res, err}
	}()
	time.Sleep(2 * time.Second) // let the call reach the upstream (it runs for 20 minutes)
	killPID(t, pid)
	a := <-done
	if a.err != nil {
		t.Fatalf("protocol error, want an isError result: %v", a.err)
	}
	if !a.res.IsError {
		t.Fatalf("isError=false, want an error saying everything is unavailable:\n%s", text(a.res))
	}
	checkUnavailable(t, text(a.res), "everything")
}
