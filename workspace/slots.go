package workspace

import (
	"context"
	"sync"
	"time"
)

// Slots bound the scripts running at once across all sessions (each
// is a process with its own memory limit), and shares them fairly: a
// freed slot goes to the waiting sessions in turn, round-robin, not to
// requests in arrival order, and no session holds every slot while
// another could use one. So a client that queues eight long scripts delays
// another session's run by at most the end of one of its runs, not by all
// eight.
//
// A nested run (a skill called from a script) takes no slot: its caller
// holds one.
type Slots struct {
	total int
	// share is the most slots one session holds: all but one, so that a
	// slot is always left for another session. A session alone still
	// runs total-1 scripts at once.
	share int

	mu      sync.Mutex
	free    int
	ring    []*slotUser // sessions with runs waiting, in turn order
	outside slotUser    // runs without a client session (commands, tests)
}

// slotUser is one session's holdings and queue: each Owner has one
// (Owner.slots), guarded by Slots.mu.
type slotUser struct {
	held    int
	waiting []chan struct{}
}

// NewSlots are total run slots.
func NewSlots(total int) *Slots {
	share := max(1, total-1)
	return &Slots{total: total, share: share, free: total}
}

// user is o's bookkeeping. Called with r.mu held.
func (r *Slots) user(o *Owner) *slotUser {
	if o == nil {
		return &r.outside
	}
	return &o.slots
}

// Acquire waits for a slot for a run of o's session (nil: no session).
// It returns how long it waited and the function that gives the slot
// back.
func (r *Slots) Acquire(ctx context.Context, o *Owner) (release func(), waited time.Duration, err error) {
	start := time.Now()
	r.mu.Lock()
	u := r.user(o)
	if r.free > 0 && u.held < r.share && len(r.ring) == 0 {
		r.free--
		u.held++
		r.mu.Unlock()
		return r.releaser(u), 0, nil
	}
	ch := make(chan struct{})
	u.waiting = append(u.waiting, ch)
	if len(u.waiting) == 1 {
		r.ring = append(r.ring, u)
	}
	r.dispatch()
	r.mu.Unlock()
	select {
	case <-ch:
		return r.releaser(u), time.Since(start), nil
	case <-ctx.Done():
		r.mu.Lock()
		defer r.mu.Unlock()
		select {
		case <-ch: // granted meanwhile: give it back
			u.held--
			r.free++
		default:
			r.dropWaiter(u, ch)
		}
		r.dispatch()
		return nil, time.Since(start), ctx.Err()
	}
}

func (r *Slots) releaser(u *slotUser) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			defer r.mu.Unlock()
			u.held--
			r.free++
			r.dispatch()
		})
	}
}

// dispatch hands free slots to waiting sessions in turn: the first in the
// ring that is under its share gets one and goes to the back of the ring.
// Called with r.mu held.
func (r *Slots) dispatch() {
	for r.free > 0 {
		i := 0
		for i < len(r.ring) && r.ring[i].held >= r.share {
			i++
		}
		if i == len(r.ring) {
			return
		}
		u := r.ring[i]
		r.ring = append(r.ring[:i], r.ring[i+1:]...)
		ch := u.waiting[0]
		u.waiting = u.waiting[1:]
		u.held++
		r.free--
		close(ch)
		if len(u.waiting) > 0 {
			r.ring = append(r.ring, u)
		}
	}
}

// dropWaiter removes a waiter that gave up. Called with r.mu held.
func (r *Slots) dropWaiter(u *slotUser, ch chan struct{}) {
	for i, c := range u.waiting {
		if c == ch {
			u.waiting = append(u.waiting[:i], u.waiting[i+1:]...)
			break
		}
	}
	if len(u.waiting) == 0 {
		for i, x := range r.ring {
			if x == u {
				r.ring = append(r.ring[:i], r.ring[i+1:]...)
				break
			}
		}
	}
}
