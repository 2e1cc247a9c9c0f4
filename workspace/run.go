package workspace

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolfold/toolfold/internal/bytesize"
	"github.com/toolfold/toolfold/sandbox"
)

// Run runs req with r in o's workspace, watching its size; with no
// owner (nil: a run outside a client session), in a fresh directory of
// the sandbox's.
//
// It returns as soon as the script has said it is done
// (sandbox.Request.OnDone): its processes, all sent SIGKILL by then, are
// torn down in the background (tails), which the session's end (Release:
// its own runs) and Wait (every run) wait for.
func (w *Set) Run(ctx context.Context, o *Owner, r sandbox.Runner, req sandbox.Request, host sandbox.Host) (*sandbox.Result, error) {
	dir := ""
	runCtx, stop := ctx, func() {}
	// A runner with no file API (Lua) cannot change the workspace: its
	// size is neither watched during the run nor measured after it (a walk
	// of the whole tree: 0.1 ms for an empty one, more with every file).
	fl, ok := r.(sandbox.FileLess)
	noFiles := ok && fl.NoFiles()
	if o != nil {
		var err error
		if dir, err = w.Get(o); err != nil {
			return nil, err
		}
		req.Workdir = dir
		if !noFiles {
			if err := w.admit(dir); err != nil {
				return &sandbox.Result{Err: &sandbox.ScriptError{Kind: "limit", Msg: err.Error()}}, nil
			}
			// Entered: stopped, and waited for, before the workspace is
			// emptied (overLimit). stop runs as soon as Run returns.
			var leave, unguard func()
			runCtx, leave = w.enter(ctx, o)
			runCtx, unguard = w.guard(runCtx, dir)
			stop = func() { unguard(); leave() }
		}
	}
	res, err := w.runUntilDone(runCtx, o, r, req, host, stop, dir != "" && !noFiles)
	if err != nil || dir == "" || noFiles {
		return res, err
	}
	w.checkAfter(o, dir, res)
	return res, nil
}

// ran is what a runner's Run returned.
type ran struct {
	res *sandbox.Result
	err error
}

// runUntilDone runs req in the background and returns its result as soon
// as the script says it is done, or Run returns. stop is called as soon
// as Run returns; measured says the workspace is measured after the run.
func (w *Set) runUntilDone(ctx context.Context, o *Owner, r sandbox.Runner, req sandbox.Request, host sandbox.Host, stop func(), measured bool) (*sandbox.Result, error) {
	answered := make(chan *sandbox.Result, 1)
	req.OnDone = func(res *sandbox.Result) {
		select {
		case answered <- res:
		default: // called once; never block the run
		}
	}
	finished := make(chan ran, 1)
	w.tails.add()
	if o != nil {
		o.tails.add()
	}
	go func() {
		defer func() {
			if o != nil {
				o.tails.done()
			}
			w.tails.done()
		}()
		res, err := r.Run(ctx, req, host)
		stop()
		finished <- ran{res, err}
		if measured && err == nil && usage(req.Workdir, w.limit) > w.limit {
			// Over the limit only after the answer (a write in flight at
			// done): the session's next run of a language that can write
			// files finds it so and says so.
			w.log.Warn("a session workspace is over its limit after a run answered at done", "dir", filepath.Base(req.Workdir))
		}
	}()
	select {
	case res := <-answered:
		// The sandbox's until Run returns, which it may still be doing:
		// changed after, so copied, its error too.
		cp := *res
		if cp.Err != nil {
			e := *cp.Err
			cp.Err = &e
		}
		return &cp, nil
	case f := <-finished:
		return f.res, f.err
	}
}

// checkAfter checks o's workspace dir after a run and says in res's
// error when it is over its limit or the budget, or when the tmpfs on it
// refused a write.
func (w *Set) checkAfter(o *Owner, dir string, res *sandbox.Result) {
	if full := w.overLimit(o, dir); full != nil {
		switch {
		case res.Err == nil, res.Err.Kind == "killed":
			res.Err = &sandbox.ScriptError{Kind: "limit", Msg: full.Error()}
		default:
			res.Err.Msg += "; and " + full.Error()
		}
	} else if res.Err != nil && noSpace(res.Err.Msg) {
		// The tmpfs on the workspace refused a write (mount.go).
		res.Err.Msg += fmt.Sprintf("; the session's workspace is full: it holds at most %s (sandbox.workspace_size); delete files it no longer needs, or write less",
			bytesize.Format(w.limit))
	}
}

// noSpace reports whether a script's error is a write refused for want
// of space: Python's OSError [Errno 28], node's ENOSPC.
func noSpace(msg string) bool {
	return strings.Contains(msg, "No space left on device") || strings.Contains(msg, "ENOSPC") ||
		strings.Contains(msg, "Disk quota exceeded")
}

// Wait returns when the processes of every run answered at done, of every
// session and of none, have ended: at the proxy's close, before the
// runners are.
func (w *Set) Wait() { w.tails.wait() }

// tails counts the runs answered at done whose processes are still being
// torn down; wait returns when there are none.
type tails struct {
	mu   sync.Mutex
	n    int
	zero *sync.Cond
}

func (t *tails) add() {
	t.mu.Lock()
	t.n++
	t.mu.Unlock()
}

func (t *tails) done() {
	t.mu.Lock()
	if t.n--; t.n == 0 && t.zero != nil {
		t.zero.Broadcast()
	}
	t.mu.Unlock()
}

func (t *tails) wait() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.zero == nil {
		t.zero = sync.NewCond(&t.mu)
	}
	for t.n > 0 {
		t.zero.Wait()
	}
}
