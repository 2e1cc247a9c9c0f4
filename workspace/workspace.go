package workspace

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
	"sync"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/bytesize"
	"github.com/toolfold/toolfold/internal/tempdir"
	"github.com/toolfold/toolfold/sandbox"
)

// Every client session gets a workspace: a directory that is the working
// directory of each of its runs and keeps what they write (state,
// checkpoints, exported files) until the session ends. Its contents are
// hostile: nothing here follows a symlink there, when measuring or when
// removing.

// workspaceBlock is the least an entry of a workspace counts for: 200,000
// empty files fill a disk's inodes as surely as one big file fills its
// blocks.
const workspaceBlock = 4 << 10

// workspacePoll is how often a running script's workspace is measured.
const workspacePoll = 500 * time.Millisecond

// Options configure a Set. The zero value (or nil) is temporary
// workspaces of config.DefaultSandbox's size and budget.
type Options struct {
	Size   int64  // sandbox.workspace_size: each workspace; 0: the default
	Budget int64  // sandbox.workspace_budget: every workspace together; 0: the default
	Dir    string // sandbox.workspace_dir; "": temporary workspaces only
	Logger *slog.Logger
	// Forget, when set, stops what the runners keep for a workspace (warm
	// children with it bound); called before it is removed or unlocked.
	Forget func(dir string)
}

// Set holds the workspace of each session, under one root made on first
// use and removed at Close; or, with sandbox.workspace_dir, under that
// directory, kept (see persisted).
type Set struct {
	limit   int64
	budget  int64  // sandbox.workspace_budget: every workspace together
	persist string // sandbox.workspace_dir; "": temporary workspaces
	log     *slog.Logger
	// mount, when set, bounds a new workspace directory (a size- and
	// inode-limited tmpfs); unmount undoes it before the directory is
	// removed. Without them the size is watched by usage alone.
	mount, unmount func(dir string) error
	forget         func(dir string) // Options.Forget
	// tails are the runs of every session (and of none) answered at done
	// whose processes are still ending (run.go): Wait waits for them.
	tails tails

	// mu guards these and each Owner's dir, lock and runs: the directory
	// is the session's, made here on its first run and released here when
	// the session ends.
	mu     sync.Mutex
	root   string
	next   int
	closed bool
	// used is each live workspace's size when last measured (after a
	// run, and while one runs): the others' part of the budget.
	used map[string]int64
}

// New makes the workspaces of o. They are watched by measuring alone
// until Mount says toolfold may bound them by a tmpfs.
func New(o *Options) *Set {
	if o == nil {
		o = &Options{}
	}
	w := &Set{limit: o.Size, budget: o.Budget, persist: o.Dir, log: o.Logger, forget: o.Forget, used: map[string]int64{}}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if w.limit <= 0 {
		w.limit = config.DefaultSandbox.WorkspaceBytes
	}
	if w.budget <= 0 {
		w.budget = config.DefaultSandbox.WorkspaceBudget
	}
	return w
}

// Limit is each workspace's size bound in bytes (sandbox.workspace_size).
func (w *Set) Limit() int64 { return w.limit }

// Get returns o's workspace, creating it on first use. The workspace is
// removed (a persisted one unlocked) by Release, when the session ends.
func (w *Set) Get(o *Owner) (string, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return "", errors.New("the proxy is shutting down")
	}
	if o.dir != "" {
		return o.dir, nil
	}
	if o.ctx.Err() != nil {
		return "", errors.New("the client session has ended")
	}
	if w.persist != "" && o.stdio { // persist.go
		d, lock, err := w.persisted()
		if err != nil {
			return "", err
		}
		o.dir, o.lock = d, lock
		return d, nil
	}
	d, err := w.temporary()
	if err != nil {
		return "", err
	}
	o.dir = d
	return d, nil
}

// Dir is o's workspace, "" before its first run and after its release.
func (w *Set) Dir(o *Owner) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return o.dir
}

// temporary makes a workspace under the root, removed with it. Called with
// w.mu held.
func (w *Set) temporary() (string, error) {
	if w.root == "" {
		// Named with the pid: the next start removes (and unmounts) a
		// killed toolfold's workspaces, which it could not.
		root, swept, err := tempdir.Make(nil, "toolfold-workspaces-")
		if swept > 0 {
			w.log.Info("removed session workspaces a stopped toolfold left behind", "count", swept)
		}
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

// Release, when o's session has ended, waits for its runs answered at
// done to end, then removes its workspace, or unlocks a persisted one.
func (w *Set) Release(o *Owner) {
	o.tails.wait() // its runs, still ending in the workspace
	w.mu.Lock()
	dir, lock := o.dir, o.lock
	o.dir, o.lock = "", nil
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

// Close removes the root of temporary workspaces; later Gets fail. The
// sessions' own workspaces are released as the sessions end (their
// Release runs first).
func (w *Set) Close() {
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
func (w *Set) remove(dir string) {
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
func (w *Set) removeTree(dir string) {
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
		bytesize.Format(e.limit))
}

// errBudgetFull is the cause a run is cancelled with when every
// workspace together grows past sandbox.workspace_budget.
type errBudgetFull struct{ budget int64 }

func (e errBudgetFull) Error() string {
	return fmt.Sprintf("the workspaces of all sessions together reached toolfold's %s budget (sandbox.workspace_budget); retry once other sessions end, end this session (its workspace goes with it), or ask the operator to raise sandbox.workspace_budget",
		bytesize.Format(e.budget))
}

// measure is dir's usage now, recorded as its part of the budget, and
// the total of the other workspaces as last measured.
func (w *Set) measure(dir string) (own, others int64) {
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
func (w *Set) admit(dir string) error {
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
func (w *Set) guard(ctx context.Context, dir string) (context.Context, func()) {
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

// overLimit checks o's workspace dir after a run. A temporary workspace
// left over its limit is emptied (a later run could do nothing in it),
// once the session's other runs in it are stopped, and the error says so;
// a persisted one is left as it is.
func (w *Set) overLimit(o *Owner, dir string) error {
	own, others := w.measure(dir)
	if own <= w.limit && own+others <= w.budget {
		return nil
	}
	if w.isPersisted(dir) {
		// A persisted workspace holds what the user chose to keep: say
		// where, never delete.
		return fmt.Errorf("the workspace %q in sandbox.workspace_dir is over its %s limit; runs will stop until files are removed from it or sandbox.workspace_size is raised",
			filepath.Base(dir), bytesize.Format(w.limit))
	}
	var why error = errWorkspaceFull{w.limit}
	if own <= w.limit {
		why = errBudgetFull{w.budget}
	}
	w.stopRuns(o, why)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		w.removeTree(filepath.Join(dir, e.Name()))
	}
	w.measure(dir)
	if own <= w.limit {
		return fmt.Errorf("the workspaces of all sessions together grew past toolfold's %s budget (sandbox.workspace_budget) while this run wrote, so this workspace's files were removed; write less, or ask the operator to raise sandbox.workspace_budget",
			bytesize.Format(w.budget))
	}
	return fmt.Errorf("the workspace grew past its %s limit, so its files were removed; write less, or raise sandbox.workspace_size",
		bytesize.Format(w.limit))
}

// runs are the runs in one session's workspace, so that emptying it
// first stops every one of them: nothing writes while it is walked.
type runs struct {
	ctx    context.Context // ends, with a cause, when they are stopped
	cancel context.CancelCauseFunc
	wg     sync.WaitGroup // until each run's processes have ended
}

// enter registers a run in o's workspace: the returned context also ends
// when stopRuns is called; leave once the run's processes have ended.
func (w *Set) enter(ctx context.Context, o *Owner) (_ context.Context, leave func()) {
	w.mu.Lock()
	if o.runs == nil {
		c, cancel := context.WithCancelCause(o.ctx)
		o.runs = &runs{ctx: c, cancel: cancel}
	}
	g := o.runs
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

// stopRuns cancels, with cause, every run in o's workspace entered so
// far, and waits until their processes have ended (the caller's own run
// included, which by then has answered or is being torn down). Runs
// entered later are not affected.
func (w *Set) stopRuns(o *Owner, cause error) {
	w.mu.Lock()
	g := o.runs
	o.runs = nil
	w.mu.Unlock()
	if g != nil {
		g.cancel(cause)
		g.wg.Wait()
	}
}
