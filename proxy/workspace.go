package proxy

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
)

// Every client session gets a workspace: a directory that is the working
// directory of each of its runs and keeps what they write (state,
// checkpoints, exported files) until the session ends. The proxy treats
// its contents as hostile: it never follows a symlink there, when
// measuring or when removing.

// workspaceBlock is the least an entry of a workspace counts for: 200,000
// empty files fill a disk's inodes as surely as one big file fills its
// blocks.
const workspaceBlock = 4 << 10

// workspacePoll is how often a running script's workspace is measured.
const workspacePoll = 500 * time.Millisecond

// workspaces holds the workspace of each session, under one root made on
// first use and removed at Close; or, with sandbox.workspace_dir, under that
// directory, kept (see persisted).
type workspaces struct {
	limit   int64
	budget  int64  // sandbox.workspace_budget: every workspace together
	persist string // sandbox.workspace_dir; "": temporary workspaces
	log     *slog.Logger
	// mount, when set, bounds a new workspace directory (a size- and
	// inode-limited tmpfs); unmount undoes it before the directory is
	// removed. Without them the size is watched by usage alone.
	mount, unmount func(dir string) error
	// forget, when set, stops what the runners keep for a workspace (warm
	// children with it bound); called before it is removed or unlocked.
	forget func(dir string)

	// mu guards these and each Session's wsDir and wsLock: the directory
	// is the session's (session.go), made here on its first run and
	// released here when the session ends.
	mu     sync.Mutex
	root   string
	next   int
	closed bool
	// used is each live workspace's size when last measured (after a
	// run, and while one runs): the others' part of the budget.
	used map[string]int64
}

// newWorkspaces bounds each workspace to limit bytes (the default when 0);
// persist is sandbox.workspace_dir.
func newWorkspaces(limit int64, persist string, log *slog.Logger) *workspaces {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if limit <= 0 {
		limit = config.DefaultSandbox.WorkspaceBytes
	}
	return &workspaces{limit: limit, budget: config.DefaultSandbox.WorkspaceBudget, persist: persist, log: log, used: map[string]int64{}}
}

// get returns the session's workspace, creating it on first use. The
// workspace is removed (a persisted one unlocked) by release, when the
// session ends.
func (w *workspaces) get(s *Session) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return "", errors.New("the proxy is shutting down")
	}
	if s.wsDir != "" {
		return s.wsDir, nil
	}
	if s.ctx.Err() != nil {
		return "", errors.New("the client session has ended")
	}
	if w.persist != "" && s.id == "" { // the stdio session: workspace_persist.go
		d, lock, err := w.persisted()
		if err != nil {
			return "", err
		}
		s.wsDir, s.wsLock = d, lock
		return d, nil
	}
	d, err := w.temporary()
	if err != nil {
		return "", err
	}
	s.wsDir = d
	return d, nil
}

// temporary makes a workspace under the root, removed with it. Called with
// w.mu held.
func (w *workspaces) temporary() (string, error) {
	if w.root == "" {
		root, err := os.MkdirTemp("", "toolfold-workspaces-")
		if err != nil {
			return "", fmt.Errorf("create the workspaces directory: %w (is TMPDIR writable?)", err)
		}
		w.root = root
	}
	w.next++
	dir := filepath.Join(w.root, "session-"+strconv.Itoa(w.next))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("create a session workspace: %w", err)
	}
	if w.mount != nil {
		if err := w.mount(dir); err != nil {
			w.log.Warn("session workspaces cannot be bounded by a tmpfs; their size is watched every 500 ms instead, so a run may overshoot its limit until the next check",
				"dir", filepath.Base(dir), "err", err)
			w.mount = nil // not tried again; unmount stays for those mounted before
		}
	}
	return dir, nil
}

// release removes an ended session's workspace, or unlocks a persisted one.
func (w *workspaces) release(s *Session) {
	w.mu.Lock()
	dir, lock := s.wsDir, s.wsLock
	s.wsDir, s.wsLock = "", nil
	delete(w.used, dir)
	w.mu.Unlock()
	if dir != "" && w.forget != nil {
		w.forget(dir)
	}
	switch {
	case lock != nil:
		lock.Close() // releases the flock
	case dir != "":
		w.remove(dir)
	}
}

// close removes the root of temporary workspaces; later gets fail. The
// sessions' own workspaces are released as the sessions end
// (sessions.closeAll runs first).
func (w *workspaces) close() {
	w.mu.Lock()
	root, unmount := w.root, w.unmount
	w.closed = true
	w.mu.Unlock()
	if root == "" {
		return
	}
	// A session that ended just before may still be releasing its
	// workspace: a mounted one would keep root from being removed.
	if unmount != nil {
		sessions, _ := os.ReadDir(root)
		for _, d := range sessions {
			_ = unmount(filepath.Join(root, d.Name()))
		}
	}
	w.removeTree(root)
}

// remove unmounts (when mount is set) and deletes a workspace.
func (w *workspaces) remove(dir string) {
	w.mu.Lock()
	unmount := w.unmount
	w.mu.Unlock()
	if unmount != nil {
		if err := unmount(dir); err != nil {
			w.log.Warn("could not unmount a session workspace", "dir", dir, "err", err)
		}
	}
	w.removeTree(dir)
	w.mu.Lock()
	closed, root := w.closed, w.root
	w.mu.Unlock()
	if closed && root != "" && filepath.Dir(dir) == root {
		os.Remove(root) // close ran first and found this one still there
	}
}

// removeTree deletes dir and everything in it, logging what it could not.
func (w *workspaces) removeTree(dir string) {
	if err := removeTree(dir); err != nil {
		w.log.Warn("could not remove a session workspace", "dir", filepath.Base(dir), "err", err)
	}
}

// removeTree deletes dir and everything in it without following a
// symlink: os.RemoveAll walks by descriptor (openat with O_NOFOLLOW,
// unlinkat). Where that fails (a directory a script made unwritable),
// every directory is made writable again through an os.Root on dir, which
// resolves each path by descriptor too and refuses to leave dir: a
// directory swapped for a symlink to elsewhere between the walk and the
// chmod is refused, not followed. The caller stops the workspace's runs
// first, so nothing races the walk but what is already left.
func removeTree(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return os.RemoveAll(dir)
	}
	unlockTree(r)
	r.Close()
	return os.RemoveAll(dir)
}

// unlockHook, when set (tests), runs before a directory is made writable.
var unlockHook func(root, name string)

// unlockTree makes every directory below r (r's own too) 0700, never
// leaving r.
func unlockTree(r *os.Root) {
	fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if d == nil || !d.IsDir() { // WalkDir does not follow symlinks
			return nil
		}
		if unlockHook != nil {
			unlockHook(r.Name(), p)
		}
		r.Chmod(p, 0o700) // through r: a link out of it is refused
		return nil
	})
}

// errWorkspaceFull is the cause a run is cancelled with.
type errWorkspaceFull struct{ limit int64 }

func (e errWorkspaceFull) Error() string {
	return fmt.Sprintf("the workspace grew past its %s limit; delete files it no longer needs, write less, or raise sandbox.workspace_size",
		formatBytes(e.limit))
}

// errBudgetFull is the cause a run is cancelled with when every
// workspace together grows past sandbox.workspace_budget.
type errBudgetFull struct{ budget int64 }

func (e errBudgetFull) Error() string {
	return fmt.Sprintf("the workspaces of all sessions together reached toolfold's %s budget (sandbox.workspace_budget); retry once other sessions end, end this session (its workspace goes with it), or ask the operator to raise sandbox.workspace_budget",
		formatBytes(e.budget))
}

// measure is dir's usage now, recorded as its part of the budget, and
// the total of the other workspaces as last measured.
func (w *workspaces) measure(dir string) (own, others int64) {
	own = usage(dir, w.limit) // past the limit the run is stopped anyway
	w.mu.Lock()
	defer w.mu.Unlock()
	w.used[dir] = own
	for d, n := range w.used {
		if d != dir {
			others += n
		}
	}
	return own, others
}

// admit refuses a run in dir while every workspace together is at the
// budget: it could only make that worse.
func (w *workspaces) admit(dir string) error {
	if own, others := w.measure(dir); own+others >= w.budget {
		return errBudgetFull{w.budget}
	}
	return nil
}

// usage measures dir: every entry below it, files by their size rounded
// up to workspaceBlock, everything else as one block, except the mount
// points of the servers/ and skills/ trees (sandbox.TreeDirs: toolfold's,
// not the script's; what is below them counts). It stops counting
// once past stop, so a hostile tree costs at most stop/workspaceBlock
// entries to measure. Symlinks are counted, never followed.
func usage(dir string, stop int64) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir || d.IsDir() && filepath.Dir(p) == dir && slices.Contains(sandbox.TreeDirs, d.Name()) {
			return nil
		}
		size := int64(workspaceBlock)
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				size = max(size, (info.Size()+workspaceBlock-1)/workspaceBlock*workspaceBlock)
			}
		}
		n += size
		if n > stop {
			return filepath.SkipAll
		}
		return nil
	})
	return n
}

// guard cancels ctx, with errWorkspaceFull as the cause, when dir grows
// past the limit while a script runs. The returned stop ends the watch.
func (w *workspaces) guard(ctx context.Context, dir string) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(workspacePoll)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				own, others := w.measure(dir)
				switch {
				case own > w.limit:
					cancel(errWorkspaceFull{w.limit})
					return
				case own+others > w.budget:
					cancel(errBudgetFull{w.budget})
					return
				}
			}
		}
	})
	return ctx, func() {
		close(done)
		wg.Wait()
		cancel(nil)
	}
}

// overLimit checks s's workspace dir after a run. A temporary workspace
// left over its limit is emptied (a later run could do nothing in it),
// once the session's other runs in it are stopped, and the error says so;
// a persisted one is left as it is.
func (w *workspaces) overLimit(s *Session, dir string) error {
	own, others := w.measure(dir)
	if own <= w.limit && own+others <= w.budget {
		return nil
	}
	if w.isPersisted(dir) {
		// A persisted workspace holds what the user chose to keep: say
		// where, never delete.
		return fmt.Errorf("the workspace %q in sandbox.workspace_dir is over its %s limit; runs will stop until files are removed from it or sandbox.workspace_size is raised",
			filepath.Base(dir), formatBytes(w.limit))
	}
	var why error = errWorkspaceFull{w.limit}
	if own <= w.limit {
		why = errBudgetFull{w.budget}
	}
	w.stopRuns(s, why)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		w.removeTree(filepath.Join(dir, e.Name()))
	}
	w.measure(dir)
	if own <= w.limit {
		return fmt.Errorf("the workspaces of all sessions together grew past toolfold's %s budget (sandbox.workspace_budget) while this run wrote, so this workspace's files were removed; write less, or ask the operator to raise sandbox.workspace_budget",
			formatBytes(w.budget))
	}
	return fmt.Errorf("the workspace grew past its %s limit, so its files were removed; write less, or raise sandbox.workspace_size",
		formatBytes(w.limit))
}

// wsRuns are the runs in one session's workspace, so that emptying it
// first stops every one of them: nothing writes while it is walked.
type wsRuns struct {
	ctx    context.Context // ends, with a cause, when they are stopped
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // until each run's processes have ended
}

// enter registers a run in s's workspace: the returned context also ends
// when stopRuns is called; leave once the run's processes have ended.
func (w *workspaces) enter(ctx context.Context, s *Session) (_ context.Context, leave func()) {
	w.mu.Lock()
	if s.wsRuns == nil {
		c, cancel := context.WithCancelCause(s.ctx)
		s.wsRuns = &wsRuns{ctx: c, cancel: cancel}
	}
	g := s.wsRuns
	g.wg.Add(1)
	w.mu.Unlock()
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(g.ctx, func() { cancel(context.Cause(g.ctx)) })
	return ctx, func() {
		stop()
		cancel(nil)
		g.wg.Done()
	}
}

// stopRuns cancels, with cause, every run in s's workspace entered so
// far, and waits until their processes have ended (the caller's own run
// included, which by then has answered or is being torn down). Runs
// entered later are not affected.
func (w *workspaces) stopRuns(s *Session, cause error) {
	w.mu.Lock()
	g := s.wsRuns
	s.wsRuns = nil
	w.mu.Unlock()
	if g != nil {
		g.cancel(cause)
		g.wg.Wait()
	}
}

// runIn runs req in the workspace of ctx's client session (withSession),
// watching its size; with no session, in a fresh directory of the
// sandbox's.
//
// It returns as soon as the script has said it is done
// (sandbox.Request.OnDone): its processes, all sent SIGKILL by then, are
// torn down in the background (tails), which the session's end (its own
// runs) and Close (every run) wait for.
func (p *Proxy) runIn(ctx context.Context, r sandbox.Runner, req sandbox.Request, host sandbox.Host) (*sandbox.Result, error) {
	s := sessionOf(ctx)
	dir := ""
	runCtx, stop := ctx, func() {}
	// A runner with no file API (Lua) cannot change the workspace: its
	// size is neither watched during the run nor measured after it (a walk
	// of the whole tree: 0.1 ms for an empty one, more with every file).
	fl, ok := r.(sandbox.FileLess)
	noFiles := ok && fl.NoFiles()
	if s != nil {
		var err error
		if dir, err = p.workspaces.get(s); err != nil {
			return nil, err
		}
		req.Workdir = dir
		if !noFiles {
			if err := p.workspaces.admit(dir); err != nil {
				return &sandbox.Result{Err: &sandbox.ScriptError{Kind: "limit", Msg: err.Error()}}, nil
			}
			// Entered: stopped, and waited for, before the workspace is
			// emptied (overLimit). stop runs as soon as Run returns.
			var leave, unguard func()
			runCtx, leave = p.workspaces.enter(ctx, s)
			runCtx, unguard = p.workspaces.guard(runCtx, dir)
			stop = func() { unguard(); leave() }
		}
	}
	type ran struct {
		res *sandbox.Result
		err error
	}
	answered := make(chan *sandbox.Result, 1)
	req.OnDone = func(res *sandbox.Result) {
		select {
		case answered <- res:
		default: // called once; never block the run
		}
	}
	finished := make(chan ran, 1)
	p.tails.add()
	if s != nil {
		s.tails.add()
	}
	go func() {
		defer func() {
			if s != nil {
				s.tails.done()
			}
			p.tails.done()
		}()
		res, err := r.Run(runCtx, req, host)
		stop()
		finished <- ran{res, err}
		if dir != "" && !noFiles && err == nil && usage(dir, p.workspaces.limit) > p.workspaces.limit {
			// Over the limit only after the answer (a write in flight at
			// done): the session's next run of a language that can write
			// files finds it so and says so.
			p.log.Warn("a session workspace is over its limit after a run answered at done", "dir", filepath.Base(dir))
		}
	}()
	var res *sandbox.Result
	select {
	case res = <-answered:
		// The sandbox's until Run returns, which it may still be doing:
		// changed below, so copied, its error too.
		cp := *res
		if cp.Err != nil {
			e := *cp.Err
			cp.Err = &e
		}
		res = &cp
	case f := <-finished:
		if f.err != nil {
			return f.res, f.err
		}
		res = f.res
	}
	if dir == "" || noFiles {
		return res, nil
	}
	if full := p.workspaces.overLimit(s, dir); full != nil {
		switch {
		case res.Err == nil, res.Err.Kind == "killed":
			res.Err = &sandbox.ScriptError{Kind: "limit", Msg: full.Error()}
		default:
			res.Err.Msg += "; and " + full.Error()
		}
	} else if res.Err != nil && noSpace(res.Err.Msg) {
		// The tmpfs on the workspace refused a write (workspace_mount.go).
		res.Err.Msg += fmt.Sprintf("; the session's workspace is full: it holds at most %s (sandbox.workspace_size); delete files it no longer needs, or write less",
			formatBytes(p.workspaces.limit))
	}
	return res, nil
}

// noSpace reports whether a script's error is a write refused for want
// of space: Python's OSError [Errno 28], node's ENOSPC.
func noSpace(msg string) bool {
	return strings.Contains(msg, "No space left on device") || strings.Contains(msg, "ENOSPC") ||
		strings.Contains(msg, "Disk quota exceeded")
}

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
