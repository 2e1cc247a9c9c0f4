package sandbox

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Warm starts. Most of a run's cost is starting its child: the sandbox's
// init (clone, exec, Go start-up, the root), then the interpreter and its
// prelude. None of that depends on the script, only on where it runs and
// under which limits. A runner with Warm set therefore starts, when a run
// ends, the child for the next run of the same workspace and limits, and
// leaves it blocked on its first read of the bridge. The next run writes its
// run frame to that child instead of starting one: it pays for the script,
// not for the start. A model thinks for seconds between two runs, so the
// spare is ready long before it is needed.
//
// A spare is exactly the child a cold run would start (same init, same
// layers, limits and workspace), started a little earlier; no script code
// has reached it. It is discarded, never reused, if it died while idle,
// when its workspace is forgotten (a session ended), after SpareIdle
// unused, and at Close. At most maxSpares are kept per runner; past that a
// run's successor starts cold rather than evicting another session's.

// SpareIdle is how long a warm child waits for its run before it is stopped.
const SpareIdle = 5 * time.Minute

// spareDelay is how long after a run ends its successor's child starts:
// by then the run's answer has gone out, so starting the child (new
// namespaces, cgroups, two execs) does not compete for the CPU with the
// answer the model waits for. A run that comes sooner starts it at once.
var spareDelay = 5 * time.Millisecond

// maxSpares bounds the warm children of one runner (with its init, a
// waiting Lua or Python child holds 17 MiB resident, a node child 46 MiB).
const maxSpares = 4

// spareKey is what a spare was started for: a run may use it only if it
// would have started the same child.
type spareKey struct {
	dir  string // Request.Workdir ("" : a fresh tmpfs in the sandbox)
	tree string // Request.Tree
	lim  Limits // with defaults applied
}

// spare is one child started ahead of its run.
type spare struct {
	key   spareKey
	ready chan struct{} // closed when the start finished (or was called off); then c or err is set
	c     *child
	err   error
	idle  *time.Timer // stops the spare when unused for SpareIdle
	delay *time.Timer // starts it spareDelay after the run that asked for it
	once  sync.Once   // the start, or calling it off, happens once
}

// errSpareOff is a spare's error when it was dropped before its start.
var errSpareOff = errors.New("warm child called off before it started")

// spares are a runner's warm children, and the ends of its runs still in
// the background (background). Every runner has one; keep (the Warm
// option) makes it start spares.
type spares struct {
	p    *procRunner
	keep bool

	mu     sync.Mutex
	byKey  map[spareKey]*spare
	runs   map[string]int  // runs in progress, per workdir
	forgot map[string]bool // workdirs forgotten while runs were in progress in them
	closed bool
	wg     sync.WaitGroup // starting and stopping spares, ending inits: waited for by close
}

func newSpares(p *procRunner, keep bool) *spares {
	return &spares{p: p, keep: keep, byKey: make(map[spareKey]*spare),
		runs: make(map[string]int), forgot: make(map[string]bool)}
}

// begin notes a run under key and returns the spare started for it, once
// it is ready and still alive, or nil: the run then starts its child
// itself. end must follow.
func (s *spares) begin(ctx context.Context, key spareKey) *child {
	s.mu.Lock()
	s.runs[key.dir]++
	sp := s.byKey[key]
	if sp != nil {
		delete(s.byKey, key)
		sp.idle.Stop()
	}
	s.mu.Unlock()
	if sp == nil {
		return nil
	}
	s.kick(sp) // still waiting for its delay: a run is here now
	select {
	case <-sp.ready: // a spare still starting is further along than a new child would be
	case <-ctx.Done():
		s.background(func() { s.stop(sp) })
		return nil
	}
	if sp.err != nil {
		return nil
	}
	if sp.c.dead() {
		// Died while idle (killed from outside, say), or its interpreter
		// did and the init is ending: never hand it out.
		s.p.log.Debug("warm child died while idle", "language", s.p.language, "pid", sp.c.pid)
		sp.c.discard()
		return nil
	}
	sp.c.start, sp.c.warm = time.Now(), true
	return sp.c
}

// dead reports whether a child that has not been given a script has
// exited, or its init has answered (its command exited).
func (c *child) dead() bool {
	select {
	case <-c.exited:
		return true
	case <-c.init.settled(): // nil without an init: never ready
		return true
	default:
		return false
	}
}

// end notes the end of a run under key and starts, spareDelay later in the
// background, a spare for the next one, unless the workdir was forgotten
// meanwhile (its session ended during the run), one exists, the runner is
// closed or maxSpares are kept.
func (s *spares) end(key spareKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	forgotten := s.forgot[key.dir]
	if s.runs[key.dir]--; s.runs[key.dir] <= 0 {
		delete(s.runs, key.dir)
		delete(s.forgot, key.dir)
	}
	if forgotten {
		return
	}
	s.keepLocked(key, spareDelay)
}

// prestart starts a spare for a first run under key, unless the workdir's
// runs were forgotten, one exists, the runner is closed or maxSpares are
// kept: a session's first run is then as fast as its later ones.
func (s *spares) prestart(key spareKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forgot[key.dir] {
		return
	}
	s.keepLocked(key, spareDelay) // after the answer of the request that asked for it
}

// keepLocked adds a spare for key, started after delay. Called with mu held.
func (s *spares) keepLocked(key spareKey, delay time.Duration) {
	if !s.keep || s.closed || s.byKey[key] != nil || len(s.byKey) >= maxSpares {
		return
	}
	sp := &spare{key: key, ready: make(chan struct{})}
	sp.idle = time.AfterFunc(SpareIdle, func() { s.drop(sp) })
	s.byKey[key] = sp
	if delay <= 0 {
		sp.once.Do(func() { s.wg.Go(func() { s.start(sp) }) }) // under mu: close waits for it
		return
	}
	sp.delay = time.AfterFunc(delay, func() { s.kick(sp) })
}

// kick starts sp now if it has not started (or been called off).
func (s *spares) kick(sp *spare) {
	sp.once.Do(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			sp.err = errSpareOff
			close(sp.ready)
			return
		}
		s.wg.Go(func() { s.start(sp) }) // added under mu: close, which takes mu first, waits for it
	})
}

// callOff marks sp as never to start, unless its start has begun.
func (sp *spare) callOff() {
	if sp.delay != nil {
		sp.delay.Stop()
	}
	sp.once.Do(func() {
		sp.err = errSpareOff
		close(sp.ready)
	})
}

// start starts sp's child and writes it the preamble, so that an
// interpreter has loaded its prelude before the run frame comes.
func (s *spares) start(sp *spare) {
	defer close(sp.ready)
	c, err := s.p.start(sp.key.dir, sp.key.tree, sp.key.lim)
	if err == nil && s.p.preamble != nil {
		c.bridgeW.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err = c.bridgeW.Write(s.p.preamble); err == nil {
			err = c.bridgeW.SetWriteDeadline(time.Time{})
		}
		if err != nil {
			c.discard()
		}
	}
	if err != nil {
		s.p.log.Debug("warm child not started", "language", s.p.language, "err", err)
		sp.err = err
		s.drop(sp)
		return
	}
	sp.c = c
}

// drop stops sp if it is still kept.
func (s *spares) drop(sp *spare) {
	s.mu.Lock()
	if s.byKey[sp.key] == sp {
		delete(s.byKey, sp.key)
		sp.idle.Stop()
		// Added under mu, so close, which takes mu first, waits for it.
		s.wg.Go(func() { s.stop(sp) }) // from a timer or a failed start: never block the caller
	}
	s.mu.Unlock()
}

// stop calls off sp's start or waits for it to finish, and stops its
// child.
func (s *spares) stop(sp *spare) {
	sp.callOff()
	<-sp.ready
	if sp.c != nil {
		sp.c.discard()
	}
}

// forget stops the spares started for runs in dir, before it is removed;
// a run still in progress there starts none when it ends.
func (s *spares) forget(dir string) {
	s.mu.Lock()
	if s.runs[dir] > 0 {
		s.forgot[dir] = true
	}
	var gone []*spare
	for k, sp := range s.byKey {
		if k.dir == dir {
			delete(s.byKey, k)
			sp.idle.Stop()
			gone = append(gone, sp)
		}
	}
	s.mu.Unlock()
	for _, sp := range gone {
		s.stop(sp)
	}
}

// close stops every spare and keeps no more, and waits for the ends of
// runs in the background; runs still work, cold.
func (s *spares) close() {
	s.mu.Lock()
	s.closed = true
	gone := s.byKey
	s.byKey = make(map[spareKey]*spare)
	s.mu.Unlock()
	for _, sp := range gone {
		sp.idle.Stop()
		s.stop(sp)
	}
	s.wg.Wait()
}

// background runs f (the end of an init whose run is over, or of a spare)
// in the background; close waits for it. After close it runs at once: the
// owner expects nothing to outlive the run.
func (s *spares) background(f func()) {
	s.mu.Lock()
	if !s.closed {
		s.wg.Go(f) // added under mu: close, which takes mu first, waits for it
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	f()
}

// background is spares.background for a runner (a test's procRunner may
// have none: then f just runs in a goroutine).
func (p *procRunner) background(f func()) {
	if p.warm == nil {
		go f()
		return
	}
	p.warm.background(f)
}

// discard kills a child that will not run a script, reaps it and closes
// its pipes.
func (c *child) discard() {
	c.kill(&ScriptError{Kind: "killed", Msg: "warm child discarded"})
	c.killAndReap()
	c.closePipes()
}

// warmable reports whether a run in dir can use (and leave) a spare: a
// plain run without a workdir gets a temporary directory of its own.
func (p *procRunner) warmable(dir string) bool {
	return p.warm != nil && p.warm.keep && (dir != "" || p.sandboxed())
}

// prestart is Warmer.Prestart: a spare for a first run of req.
func (p *procRunner) prestart(req Request) {
	if !p.warmable(req.Workdir) || p.exeErr != nil || Detect().Allow(p.language, req.Require) != nil {
		return
	}
	p.warm.prestart(spareKey{dir: req.Workdir, tree: req.Tree, lim: req.Limits.withDefaults()})
}

// Forgetting and closing, for the runners' exported methods.
func (p *procRunner) forget(dir string) {
	if p.warm != nil {
		p.warm.forget(dir)
	}
}

func (p *procRunner) close() {
	if p.warm != nil {
		p.warm.close()
	}
}
