package sandbox

import (
	"context"
	"sync"
	"time"
)

// A run's wall clock (Limits.Timeout) can be paused by its host while a
// tool call waits for something that is not the script's doing, such as a
// person approving the call: PauseClock, called with the context of a
// Host call, stops the clock until the returned resume is called. Nested
// runs (a skill a script calls) pause their callers' clocks too. The CPU
// limit needs no pause: a script waiting on a call uses none.

// runClock is one run's wall clock: how long it was paused.
type runClock struct {
	parent *runClock // the clock of the run that made this one's call, if any

	mu     sync.Mutex
	paused int           // pauses in force
	since  time.Time     // when the current pause began
	owed   time.Duration // paused time not yet added to the deadline
}

type clockKey struct{}

// withClock gives the host calls of a run ctx's clock c, chained to the
// clock of any run ctx already belongs to.
func withClock(ctx context.Context, c *runClock) context.Context {
	c.parent, _ = ctx.Value(clockKey{}).(*runClock)
	return context.WithValue(ctx, clockKey{}, c)
}

// PauseClock stops the wall clock of the run whose host call ctx is (and
// of the runs it is nested in) until resume is called; resume may be
// called more than once. Outside a run it does nothing.
func PauseClock(ctx context.Context) (resume func()) {
	c, _ := ctx.Value(clockKey{}).(*runClock)
	if c == nil {
		return func() {}
	}
	for k := c; k != nil; k = k.parent {
		k.pause()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			for k := c; k != nil; k = k.parent {
				k.resume()
			}
		})
	}
}

func (c *runClock) pause() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 {
		c.since = time.Now()
	}
	c.paused++
}

func (c *runClock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 {
		c.owed += time.Since(c.since)
	}
}

// extend is how much later than planned the run's time is up, asked when
// the planned time came: the time paused since last asked (at least a
// moment while a pause is in force). 0 means the time is up.
func (c *runClock) extend() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.owed
	c.owed = 0
	if c.paused > 0 {
		now := time.Now()
		d += max(now.Sub(c.since), time.Millisecond)
		c.since = now
	}
	return d
}
