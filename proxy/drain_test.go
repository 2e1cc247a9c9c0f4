package proxy

import (
	"context"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/sandbox"
)

// stoppedRunner answers every run as a timeout that stopped pending work.
type stoppedRunner struct{}

func (stoppedRunner) Language() string { return "stopped" }

func (stoppedRunner) Run(context.Context, sandbox.Request, sandbox.Host) (*sandbox.Result, error) {
	return &sandbox.Result{Output: "started\n", PendingStopped: true,
		Err: &sandbox.ScriptError{Kind: "timeout", Msg: "timed out after 1s; make the script do less per run or raise sandbox.timeout"}}, nil
}

// TestRunFooterSaysPendingWorkStopped: when a limit stopped the timers or
// threads a script left running, the answer's footer says so.
func TestRunFooterSaysPendingWorkStopped(t *testing.T) {
	p := New(testConfig(), &Options{Runners: []sandbox.Runner{stoppedRunner{}}})
	defer p.Close()
	text, failed, err := p.RunScript(context.Background(), "setInterval(() => {}, 50)", "stopped")
	if err != nil || !failed {
		t.Fatalf("RunScript: failed %v, err %v", failed, err)
	}
	if !strings.Contains(text, "timed out after 1s") || !strings.Contains(text, "pending work (timers, threads) still running after the script's code ended was stopped") {
		t.Errorf("answer does not report the timeout and the stopped pending work:\n%s", text)
	}
}
