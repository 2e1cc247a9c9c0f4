package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/sandbox"
)

// doneRunner answers at done and keeps "tearing down" until release is
// closed, as a process runner whose child is still ending. write, when
// set, is written into the workspace before the answer.
type doneRunner struct {
	release  chan struct{}
	returned chan struct{}
	write    int
	workdir  chan string
}

func (r *doneRunner) Language() string { return "python" }

func (r *doneRunner) Run(ctx context.Context, req sandbox.Request, _ sandbox.Host) (*sandbox.Result, error) {
	defer close(r.returned)
	r.workdir <- req.Workdir
	if r.write > 0 {
		os.WriteFile(filepath.Join(req.Workdir, "big"), make([]byte, r.write), 0o600)
	}
	res := &sandbox.Result{Value: []byte("1")}
	if req.OnDone != nil {
		req.OnDone(res)
	}
	<-r.release
	return res, nil
}

func newDoneRunner() *doneRunner {
	return &doneRunner{release: make(chan struct{}), returned: make(chan struct{}), workdir: make(chan string, 1)}
}

// TestRunAnswersAtDoneAndReleaseWaits: a run answers as soon as the
// script is done, in its session's workspace; the session's release
// (and Wait) return only once its processes have ended, and only then is
// the workspace removed.
func TestRunAnswersAtDoneAndReleaseWaits(t *testing.T) {
	w := New(nil)
	defer w.Close()
	o := NewOwner(context.Background(), false)
	r := newDoneRunner()
	res, err := w.Run(context.Background(), o, r, sandbox.Request{}, nil)
	if err != nil || string(res.Value) != "1" {
		t.Fatalf("Run = %v, %v", res, err)
	}
	dir := <-r.workdir
	if dir == "" || dir != w.Dir(o) {
		t.Fatalf("the run's workdir %q, want the session's workspace %q", dir, w.Dir(o))
	}
	released := make(chan struct{})
	go func() {
		w.Release(o)
		close(released)
	}()
	select {
	case <-released:
		t.Fatal("Release returned while the run's processes were still ending")
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("the workspace went before its run ended: %v", err)
	}
	close(r.release)
	<-released
	w.Wait()
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("the workspace is still there after release: %v", err)
	}
}

// TestRunWithoutOwner: a run outside a client session gets no workspace
// of the set's (the sandbox makes a fresh directory).
func TestRunWithoutOwner(t *testing.T) {
	w := New(nil)
	defer w.Close()
	r := newDoneRunner()
	close(r.release)
	if _, err := w.Run(context.Background(), nil, r, sandbox.Request{}, nil); err != nil {
		t.Fatal(err)
	}
	if dir := <-r.workdir; dir != "" {
		t.Errorf("a run without a session ran in %q", dir)
	}
	w.Wait()
}

// TestRunOverLimitEmptiesTheWorkspace: a run that leaves its workspace
// past the limit fails with the limit error, and the workspace is
// emptied.
func TestRunOverLimitEmptiesTheWorkspace(t *testing.T) {
	w := New(&Options{Size: 64 << 10})
	defer w.Close()
	o := NewOwner(context.Background(), false)
	defer w.Release(o)
	r := newDoneRunner()
	r.write = 128 << 10
	close(r.release)
	res, err := w.Run(context.Background(), o, r, sandbox.Request{}, nil)
	if err != nil || res.Err == nil || res.Err.Kind != "limit" || !strings.Contains(res.Err.Msg, "64.0 KiB limit") {
		t.Fatalf("Run = %+v, %v; want the workspace limit", res, err)
	}
	if entries, _ := os.ReadDir(w.Dir(o)); len(entries) != 0 {
		t.Errorf("the workspace over its limit still holds %d entries", len(entries))
	}
}
