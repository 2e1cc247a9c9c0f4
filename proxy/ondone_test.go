package proxy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/sandbox"
)

// heldRunner answers at done (Request.OnDone) and then holds its Run, as
// a run whose processes are still being torn down, until release closes.
type heldRunner struct {
	release chan struct{}
	ran     chan struct{} // closed when Run returns
}

func (h *heldRunner) Language() string { return "lua" }

func (h *heldRunner) Run(ctx context.Context, req sandbox.Request, host sandbox.Host) (*sandbox.Result, error) {
	defer close(h.ran)
	res := &sandbox.Result{Output: "answered at done\n"}
	if req.OnDone == nil {
		return nil, nil // the test fails on the missing answer
	}
	req.OnDone(res)
	<-h.release
	return res, nil
}

// run_script answers as soon as the script is done, before its run's
// processes have ended; the proxy's Close waits for them.
func TestRunAnsweredAtDone(t *testing.T) {
	h := &heldRunner{release: make(chan struct{}), ran: make(chan struct{})}
	p, cs := startProxyWith(t, testConfig(), &Options{Runners: []sandbox.Runner{h}})
	text, isErr := callText(t, cs, "run_script", map[string]any{"code": "return 1"})
	if isErr || !strings.Contains(text, "answered at done") {
		t.Fatalf("run_script = %q (error %v), want the result given at done", text, isErr)
	}
	select {
	case <-h.ran:
		t.Fatal("Run had returned before the answer: nothing was answered early")
	default:
	}
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a run's processes were still ending")
	case <-time.After(200 * time.Millisecond):
	}
	close(h.release)
	select {
	case <-closed:
	case <-time.After(testlog.Bound(time.Minute)):
		t.Fatal("Close did not return once the run ended")
	}
}
