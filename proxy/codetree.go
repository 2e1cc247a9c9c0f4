package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/toolfold/toolfold/codeapi"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/internal/tempdir"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skillhost"
)

// The code API trees (package codeapi): the read-only servers/ and skills/
// every run sees beside its workspace (sandbox.Request.Tree). One tree is
// written per catalog version, in the background, as soon as the catalog
// is rebuilt (an upstream connects, drops or lists new tools, a skill is
// saved), and shared by every session; where the catalog's texts hold
// personal data (catalogpii.go) each session gets its own, tokenized with
// its vault, written at its first run of that version. A run takes the
// newest tree (waiting for it right after a change, so the change shows),
// holds it until it ends, and a tree no run holds is removed once a newer
// one replaced it. Nothing is copied per run.

// treeDebounce is how long a new version waits before it is written.
const treeDebounce = 20 * time.Millisecond

// errSuperseded is the error of a tree not written because a newer
// version replaced it first.
var errSuperseded = errors.New("superseded")

// codeTrees keeps the trees.
type codeTrees struct {
	root string // private directory of this proxy's trees; "" when off
	log  *slog.Logger

	mu      sync.Mutex
	gen     uint64                                    // catalog version
	build   func(s *Session, linkFrom string) treeJob // the current version's writer
	shared  *codeTree                                 // the current shared tree, nil when per session
	base    *codeTree                                 // per session: the untokenized tree theirs link to, never served
	private map[*Session]*codeTree
	// waiting are the sessions whose warm children (warm.go) start, with
	// onReady, each time their tree is written: a child binds the tree of
	// its start, so one started before a change would not serve a run.
	waiting map[*Session]bool
	onReady func(*Session)
}

// treeJob writes one tree into dir.
type treeJob func(dir string) (codeapi.Stats, error)

// codeTree is one written (or being written) tree.
type codeTree struct {
	dir   string
	ready chan struct{} // closed when written; then err is set
	err   error
	refs  int  // runs holding it; under codeTrees.mu
	stale bool // replaced by a newer one: removed when refs reaches 0
}

// codeTreePrefix names the directory of one proxy's trees; the process id
// follows it, so the next start can remove a killed proxy's.
const codeTreePrefix = "toolfold-code-"

// newCodeTrees makes the keeper; off (no trees) when the sandbox cannot
// bind them (no mount namespace) or the directory cannot be made.
func newCodeTrees(log *slog.Logger) *codeTrees {
	t := &codeTrees{log: log.With("component", "codeapi"), private: map[*Session]*codeTree{}, waiting: map[*Session]bool{}}
	if l := sandbox.Detect(); !l.Namespaces || !l.Filesystem {
		return t
	}
	// /dev/shm, a tmpfs, where there is one: writing 8,000 small files
	// there takes a third of the time it takes on a journaled disk, and the
	// pages are in memory either way once runs read them.
	// Trees a killed toolfold left there are removed first.
	dir, swept, err := tempdir.Make([]string{"/dev/shm", ""}, codeTreePrefix)
	if swept > 0 {
		t.log.Info("removed servers/ trees a stopped toolfold left behind", "count", swept)
	}
	if err != nil {
		t.log.Warn("no servers/ tree in runs: cannot make its directory", "err", err)
		return t
	}
	t.root = dir
	return t
}

// on reports whether runs get trees.
func (t *codeTrees) on() bool { return t != nil && t.root != "" }

// changed starts a new version: perSession when texts hold personal data.
// The shared tree is written now, in the background.
func (t *codeTrees) changed(build func(s *Session, linkFrom string) treeJob, perSession bool) {
	if !t.on() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gen++
	t.build = build
	for _, tr := range []*codeTree{t.shared, t.base} {
		if tr != nil {
			t.retireLocked(tr)
		}
	}
	t.shared, t.base = nil, nil
	for s, tr := range t.private {
		t.retireLocked(tr)
		delete(t.private, s)
	}
	if perSession {
		t.base = t.startLocked(build(nil, ""), nil)
	} else {
		t.shared = t.startLocked(build(nil, ""), nil)
	}
}

// startPrivateLocked starts writing s's own tree, its files without
// personal data linked to the base tree's once that is written.
func (t *codeTrees) startPrivateLocked(s *Session) *codeTree {
	build, base := t.build, t.base
	return t.startLocked(func(dir string) (codeapi.Stats, error) {
		link := ""
		if base != nil {
			<-base.ready
			if base.err == nil {
				link = base.dir // removed meanwhile: the files are written instead
			}
		}
		return build(s, link)(dir)
	}, s)
}

// startLocked starts writing a tree with job: owner's, or shared for nil.
func (t *codeTrees) startLocked(job treeJob, owner *Session) *codeTree {
	name := "shared"
	if owner != nil {
		name = fmt.Sprintf("s%p", owner)
	}
	tr := &codeTree{dir: filepath.Join(t.root, strconv.FormatUint(t.gen, 10)+"-"+name), ready: make(chan struct{})}
	go func() {
		tr.err = t.write(tr, job)
		close(tr.ready)
		if tr.err == nil {
			t.written(tr, owner)
		}
	}()
	return tr
}

// write writes tr with job, unless a newer version replaced it first.
func (t *codeTrees) write(tr *codeTree, job treeJob) error {
	// A burst of changes (upstreams connecting one by one at start)
	// writes only its last version.
	time.Sleep(treeDebounce)
	if t.isStale(tr) {
		return errSuperseded
	}
	start := time.Now()
	st, err := job(tr.dir)
	if err != nil {
		if !t.isStale(tr) { // else its removal was the error
			t.log.Warn("servers/ tree not written; runs go without it until the next catalog change", "err", err)
		}
		return err
	}
	t.log.Debug("servers/ tree written", "files", st.Files, "bytes", st.Bytes, "duration", time.Since(start))
	return nil
}

func (t *codeTrees) isStale(tr *codeTree) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return tr.stale
}

// written calls onReady for the sessions waiting for tr.
func (t *codeTrees) written(tr *codeTree, owner *Session) {
	t.mu.Lock()
	var who []*Session
	if !tr.stale && t.onReady != nil {
		for s := range t.waiting {
			if owner == nil || s == owner {
				who = append(who, s)
			}
		}
	}
	t.mu.Unlock()
	for _, s := range who {
		t.onReady(s)
	}
}

// ready is the tree of s's next run if it is written (ok), for a child
// started ahead of that run; otherwise not ok, and s waits: onReady(s)
// is called when its tree is written, and again for every later version.
// Without trees it is "" and ok.
func (t *codeTrees) ready(s *Session) (dir string, ok bool) {
	if !t.on() {
		return "", true
	}
	t.mu.Lock()
	t.waiting[s] = true
	tr := t.shared
	if tr == nil && t.build != nil {
		if tr = t.private[s]; tr == nil {
			tr = t.startPrivateLocked(s)
			t.private[s] = tr
		}
	}
	t.mu.Unlock()
	if tr == nil {
		return "", false
	}
	select {
	case <-tr.ready:
		return tr.dir, tr.err == nil
	default:
		return "", false
	}
}

// retireLocked marks tr replaced, removing it when no run holds it.
func (t *codeTrees) retireLocked(tr *codeTree) {
	tr.stale = true
	if tr.refs == 0 {
		go t.remove(tr)
	}
}

// remove deletes a tree once it is written.
func (t *codeTrees) remove(tr *codeTree) {
	<-tr.ready
	if err := codeapi.Remove(tr.dir); err != nil {
		t.log.Warn("cannot remove an old servers/ tree", "err", err)
	}
}

// acquire returns the tree a run of s should see, waiting until it is
// written, and the function that releases it; "" when there is none.
func (t *codeTrees) acquire(ctx context.Context, s *Session) (string, func()) {
	for {
		dir, release, again := t.tryAcquire(ctx, s)
		if !again {
			return dir, release
		}
	}
}

// tryAcquire is acquire once; again when the tree it waited for was
// superseded before it was written.
func (t *codeTrees) tryAcquire(ctx context.Context, s *Session) (dir string, release func(), again bool) {
	none := func() {}
	if !t.on() {
		return "", none, false
	}
	t.mu.Lock()
	tr := t.shared
	if tr == nil && t.build != nil {
		if tr = t.private[s]; tr == nil {
			tr = t.startPrivateLocked(s)
			t.private[s] = tr
		}
	}
	if tr == nil {
		t.mu.Unlock()
		return "", none, false
	}
	tr.refs++
	t.mu.Unlock()
	release = func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		if tr.refs--; tr.refs == 0 && tr.stale {
			go t.remove(tr)
		}
	}
	select {
	case <-tr.ready:
	case <-ctx.Done():
		release()
		return "", none, false
	}
	if tr.err != nil {
		release()
		return "", none, errors.Is(tr.err, errSuperseded)
	}
	return tr.dir, release, false
}

// forget drops s's own tree at its end.
func (t *codeTrees) forget(s *Session) {
	if !t.on() {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.waiting, s)
	if tr := t.private[s]; tr != nil {
		delete(t.private, s)
		t.retireLocked(tr)
	}
}

// close removes every tree; runs have ended.
func (t *codeTrees) close() {
	if !t.on() {
		return
	}
	t.mu.Lock()
	trees := []*codeTree{t.shared, t.base}
	for _, tr := range t.private {
		trees = append(trees, tr)
	}
	t.mu.Unlock()
	for _, tr := range trees {
		if tr != nil {
			<-tr.ready
		}
	}
	os.RemoveAll(t.root)
}

// treeCatalog rebuilds the code API trees for catalog ix: the skills as
// the provider last read them, texts tokenized per session where ix's
// hold personal data.
func (p *Proxy) treeCatalog(ix *index.Index, pii *catalogPII) {
	if !p.trees.on() {
		return
	}
	list := p.skills.Snapshot()
	perSession := pii != nil && (pii.servers || len(pii.tools) > 0)
	lang := p.defaultLanguage().Name
	opts := &codeapi.Options{Purpose: p.purposeOf}
	if perSession {
		opts.HoldsPII = func(server, tool string) bool {
			if tool == "" {
				return pii.servers
			}
			return pii.tools[server+"\x00"+tool]
		}
	}
	build := func(s *Session, linkFrom string) treeJob {
		return func(dir string) (codeapi.Stats, error) {
			c := codeapi.FromIndex(ix, skillhost.ServerName, opts)
			for _, sk := range list {
				c.Skills = append(c.Skills, codeapi.Skill{Name: sk.Name, Description: sk.Description, Language: sk.Language,
					Notes: sk.Notes, Code: sk.Code, Parameters: sk.Parameters, Result: sk.Result})
			}
			wo := &codeapi.WriteOptions{Language: lang}
			if tok := p.pii.treeText(s); tok != nil { // tokenizer.go
				wo.Tokenize, wo.LinkFrom = tok, linkFrom
			}
			return codeapi.Write(dir, c, wo)
		}
	}
	p.trees.changed(build, perSession)
}

// treeHelp is run_script's sentence on the trees, when runs get them.
func (p *Proxy) treeHelp() string {
	if !p.trees.on() {
		return ""
	}
	return "Read-only servers/ and skills/ there hold every tool and skill as importable code. "
}

// purposeOf is a server's purpose as search_tools' description gives it.
func (p *Proxy) purposeOf(server string) string {
	for _, s := range p.tools.servers() {
		if s.Name == server {
			return purpose(s)
		}
	}
	return ""
}
