package upstream

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// callDeadlines enforces one upstream's call_timeout without a timer per
// call.
//
// context.WithTimeout arms a runtime timer for every call, and arming a
// timer earlier than the network poller's sleep wakes the poller's thread
// (a write to its eventfd, or waking an idle P): on the passthrough path,
// where every other wait is for the upstream's pipe, each call paid that
// thread wake-up, which the go-sdk-only hop does not. Here the calls to one
// upstream, all with the same timeout, wait in start order, which is also
// deadline order; one timer is armed at or before the first deadline, and
// a call that starts while it is armed does not touch it. It fires at most
// once per call_timeout while calls keep coming, cancels the calls whose
// deadline passed, and re-arms for the next.
type callDeadlines struct {
	timeout time.Duration

	mu    sync.Mutex
	calls list.List // of *deadlineCtx, in start (and deadline) order
	timer *time.Timer
	armed bool // timer will fire
	arms  int  // times the timer was armed, for tests
}

func newCallDeadlines(timeout time.Duration) *callDeadlines {
	return &callDeadlines{timeout: timeout}
}

// start returns ctx limited to the timeout, and the function that releases
// it, as context.WithTimeout does: once the timeout passes, its Err is
// context.DeadlineExceeded.
func (d *callDeadlines) start(ctx context.Context) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithCancelCause(ctx)
	c := &deadlineCtx{Context: inner, at: time.Now().Add(d.timeout), cancel: cancel}
	d.mu.Lock()
	e := d.calls.PushBack(c)
	if !d.armed {
		d.arm(d.timeout)
	}
	d.mu.Unlock()
	return c, func() {
		d.mu.Lock()
		d.calls.Remove(e)
		d.mu.Unlock()
		cancel(context.Canceled)
	}
}

// arm sets the timer to fire after wait; d.mu is held.
func (d *callDeadlines) arm(wait time.Duration) {
	if d.timer == nil {
		d.timer = time.AfterFunc(wait, d.fire)
	} else {
		d.timer.Reset(wait)
	}
	d.armed = true
	d.arms++
}

// fire cancels the calls whose deadline passed, and re-arms for the next.
// A timer armed for a call that has since ended fires early for the
// others: it then only re-arms.
func (d *callDeadlines) fire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.armed = false
	now := time.Now()
	for e := d.calls.Front(); e != nil; e = d.calls.Front() {
		c := e.Value.(*deadlineCtx)
		if wait := c.at.Sub(now); wait > 0 {
			d.arm(wait)
			return
		}
		d.calls.Remove(e)
		c.cancel(context.DeadlineExceeded)
	}
}

// deadlineCtx is a call's context: a cancellable context that reports its
// deadline, and context.DeadlineExceeded once cancelled for passing it, as
// a context.WithTimeout context would (the go-sdk tells the upstream why
// it cancels with ctx.Err()).
type deadlineCtx struct {
	context.Context
	at     time.Time
	cancel context.CancelCauseFunc
}

func (c *deadlineCtx) Deadline() (time.Time, bool) {
	if d, ok := c.Context.Deadline(); ok && d.Before(c.at) {
		return d, true
	}
	return c.at, true
}

func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}
