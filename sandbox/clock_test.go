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
	if d := outer.extend(); d < 20*time.Millisecond {
		t.Errorf("while paused: outer extends by %v, want the pause so far", d)
	}
	time.Sleep(10 * time.Millisecond)
	resume()
	resume() // a second call does nothing
	if d := inner.extend(); d < 30*time.Millisecond {
		t.Errorf("after the pause: inner extends by %v, want the whole pause", d)
	}
	if d := outer.extend(); d < 10*time.Millisecond || d > 25*time.Millisecond {
		t.Errorf("after the pause: outer extends by %v, want what was not yet added (~10ms)", d)
	}
	if d := inner.extend(); d != 0 {
		t.Errorf("extended twice by one pause: %v", d)
	}
}
