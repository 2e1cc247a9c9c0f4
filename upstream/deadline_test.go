package upstream

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

type ctxKey struct{}

// TestCallDeadlinesTimeOut: a call that runs past the timeout is cancelled
// with context.DeadlineExceeded, through the contexts the SDK derives from
// it too, and the calls after it are cancelled at their own deadlines.
func TestCallDeadlinesTimeOut(t *testing.T) {
	d := newCallDeadlines(50 * time.Millisecond)
	start := time.Now()
	first, stop1 := d.start(context.Background())
	defer stop1()
	time.Sleep(20 * time.Millisecond)
	second, stop2 := d.start(context.Background())
	defer stop2()
	derived := context.WithValue(first, ctxKey{}, 1)
	select {
	case <-derived.Done():
	case <-time.After(testlog.Bound(time.Minute)):
		t.Fatal("the first call was never cancelled")
	}
	if took := time.Since(start); took < 50*time.Millisecond {
		t.Errorf("the first call ended after %v, before its 50ms", took)
	}
	if first.Err() != context.DeadlineExceeded || derived.Err() != context.DeadlineExceeded {
		t.Errorf("Err: %v, derived %v; want %v", first.Err(), derived.Err(), context.DeadlineExceeded)
	}
	if dl, ok := first.Deadline(); !ok || dl.Sub(start) < 50*time.Millisecond {
		t.Errorf("Deadline: %v %v", dl.Sub(start), ok)
	}
	<-second.Done()
	if took := time.Since(start); took < 70*time.Millisecond || second.Err() != context.DeadlineExceeded {
		t.Errorf("the second call ended after %v with %v, want 70ms and %v", took, second.Err(), context.DeadlineExceeded)
	}
}

// TestCallDeadlinesEndedCalls: a call released before its deadline, or
// whose caller cancelled it, is not reported as timed out.
func TestCallDeadlinesEndedCalls(t *testing.T) {
	d := newCallDeadlines(30 * time.Millisecond)
	done, stop := d.start(context.Background())
	stop()
	if !errors.Is(done.Err(), context.Canceled) {
		t.Errorf("released call: %v", done.Err())
	}
	parent, cancel := context.WithCancel(context.Background())
	cancelled, stop := d.start(parent)
	defer stop()
	cancel()
	<-cancelled.Done()
	time.Sleep(60 * time.Millisecond) // past the deadline: still the caller's cancellation
	if cancelled.Err() != context.Canceled {
		t.Errorf("cancelled call: %v", cancelled.Err())
	}
}

// TestCallDeadlinesArmOnce: calls one after another, each shorter than the
// timeout, arm the timer once, not once per call: arming a timer per call
// woke the network poller's thread on every passthrough call.
func TestCallDeadlinesArmOnce(t *testing.T) {
	d := newCallDeadlines(time.Minute)
	for range 1000 {
		_, stop := d.start(context.Background())
		stop()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.arms != 1 || d.calls.Len() != 0 {
		t.Errorf("armed %d times, %d calls left; want 1 and 0", d.arms, d.calls.Len())
	}
}
