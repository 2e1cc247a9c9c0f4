package sandbox

import (
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

// maxSpares bounds the warm children of one runner (with its init, a
// waiting Lua or Python child holds 17 MiB resident, a node child 46 MiB).
const maxSpares = 4

// spareKey is what a spare was started for: a run may use it only if it
// would have started the same child.
type spareKey struct {
	dir string // Request.Workdir ("" : a fresh tmpfs in the sandbox)
	lim Limits // with defaults applied
}

// spare is one child started ahead of its run.
type spare struct {
	key   spareKey
	ready chan struct{} // closed when the start finished; then c or err is set
	c     *child
	err   error
	idle  *time.Timer // stops the spare when unused for SpareIdle
}

// spares are a runner's warm children.
type spares struct {
	p *procRunner

	mu     sync.Mutex
	byKey  map[spareKey]*spare
	closed bool
	starts sync.WaitGroup // starting and stopping spares, ending inits: waited for by close
}

func newSpares(p *procRunner) *spares {
	return &spares{p: p, byKey: make(map[spareKey]*spare)}
}

// take returns the spare started for key, once it is ready and still
// alive, or nil: the run then starts its child itself.
func (s *spares) take(key spareKey) *child {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	sp := s.byKey[key]
	if sp != nil {
		delete(s.byKey, key)
		sp.idle.Stop()
	}
	s.mu.Unlock()
	if sp == nil {
		return nil
	}
	<-sp.ready // a spare still starting is further along than a new child would be
	if sp.err != nil {
		return nil
	}
	select {
	case <-sp.c.exited: // died while idle (killed from outside, say): never reuse
		s.p.log.Debug("warm child died while idle", "language", s.p.language, "pid", sp.c.pid)
		sp.c.discard()
		return nil
	default:
	}
	sp.c.start, sp.c.warm = time.Now(), true
	return sp.c
}

// refill starts, in the background, a spare for the next run under key,
// unless one exists, the runner is closed or maxSpares are kept.
func (s *spares) refill(key spareKey) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.byKey[key] != nil || len(s.byKey) >= maxSpares {
		return
	}
	sp := &spare{key: key, ready: make(chan struct{})}
	sp.idle = time.AfterFunc(SpareIdle, func() { s.drop(sp) })
	s.byKey[key] = sp
	s.starts.Go(func() { s.start(sp) })
}

// start starts sp's child and writes it the preamble, so that an
// interpreter has loaded its prelude before the run frame comes.
func (s *spares) start(sp *spare) {
	defer close(sp.ready)
	c, err := s.p.start(sp.key.dir, sp.key.lim)
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
		s.starts.Go(func() { s.stop(sp) }) // from a timer or a failed start: never block the caller
	}
	s.mu.Unlock()
}

// stop waits for sp's start to finish and stops its child.
func (s *spares) stop(sp *spare) {
	<-sp.ready
	if sp.c != nil {
		sp.c.discard()
	}
}

// forget stops the spares started for runs in dir, before it is removed.
func (s *spares) forget(dir string) {
	if s == nil {
		return
	}
	s.mu.Lock()
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

// close stops every spare and keeps no more; runs still work, cold.
func (s *spares) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.closed = true
	gone := s.byKey
	s.byKey = make(map[spareKey]*spare)
	s.mu.Unlock()
	for _, sp := range gone {
		sp.idle.Stop()
		s.stop(sp)
	}
	s.starts.Wait()
}

// background runs f, the end of an init whose run is over, in the
// background; a warm runner's close waits for it. A closed warm runner
// runs it at once: its owner expects nothing of it to outlive the run.
func (p *procRunner) background(f func()) {
	if s := p.warm; s != nil {
		s.mu.Lock()
		if !s.closed {
			s.starts.Go(f) // added under mu: close, which takes mu first, waits for it
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		f()
		return
	}
	go f()
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
	return p.warm != nil && (dir != "" || p.sandboxed())
}

// Forgetting and closing, for the runners' exported methods.
func (p *procRunner) forget(dir string) { p.warm.forget(dir) }
func (p *procRunner) close()            { p.warm.close() }
