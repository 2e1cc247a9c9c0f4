package sandbox

import (
	"context"
	"testing"
	"time"
)

// TestPauseClock: time paused, in a run or a run nested in it, is added to
// the run's deadline; outside a run pausing does nothing.
func TestPauseClock(t *testing.T) {
	PauseClock(context.Background())() // no run: no effect, no panic
	outer := &runClock{}
	ctx := withClock(context.Background(), outer)
	inner := &runClock{}
	nested := withClock(ctx, inner)
	if d := outer.extend(); d != 0 {
		t.Fatalf("never paused: extend %v, want 0", d)
	}
	resume := PauseClock(nested)
	time.Sleep(20 * time.Millisecond)
	added := outer.extend()
	if added < 20*time.Millisecond {
		t.Errorf("while paused: outer extends by %v, want the pause so far", added)
	}
	time.Sleep(10 * time.Millisecond)
	resume()
	resume() // a second call does nothing
	whole := inner.extend()
	if whole < 30*time.Millisecond {
		t.Errorf("after the pause: inner extends by %v, want the whole pause", whole)
	}
	// The rest is the whole pause less what was added while paused; the
	// inner and outer clocks pause and resume a moment apart, so only
	// half of what was added must be missing (a loaded machine stretches
	// the sleeps, never this check).
	if d := outer.extend(); d < 10*time.Millisecond || d > whole-added/2 {
		t.Errorf("after the pause: outer extends by %v, want what was not yet added (%v of the %v pause)", d, whole-added, whole)
	}
	if d := inner.extend(); d != 0 {
		t.Errorf("extended twice by one pause: %v", d)
	}
}
