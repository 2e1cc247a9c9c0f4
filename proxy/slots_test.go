package proxy

import (
	"context"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// A session that filled its share leaves a slot for another session.
func TestRunSlotsLeaveOneForAnother(t *testing.T) {
	r := newRunSlots(4)
	a, b := &Session{}, &Session{}
	for range 3 {
		if _, _, err := r.acquire(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := r.acquire(ctx, a); err == nil {
		t.Fatal("a session took every slot")
	}
	release, waited, err := r.acquire(context.Background(), b)
	if err != nil || waited != 0 {
		t.Fatalf("another session waited %v (err %v) with a slot kept free", waited, err)
	}
	release()
}

// Freed slots go to waiting sessions in turn, not in arrival order: a
// session that queued one run behind another's three gets the second
// slot freed, not the fourth.
func TestRunSlotsRoundRobin(t *testing.T) {
	r := newRunSlots(2) // a share of one slot each
	a, b, c := &Session{}, &Session{}, &Session{}
	relA, _, _ := r.acquire(context.Background(), a)
	relB, _, _ := r.acquire(context.Background(), b)
	granted := make(chan string, 8)
	wait := func(name string, s *Session) {
		rel, _, err := r.acquire(context.Background(), s)
		if err != nil {
			t.Error(err)
			return
		}
		granted <- name
		time.Sleep(20 * time.Millisecond)
		rel()
	}
	for i := range 3 {
		go wait("a", a)
		waitQueued(t, r, a, i+1)
	}
	go wait("c", c)
	waitQueued(t, r, c, 1)
	relA()
	relB()
	var order []string
	for range 4 {
		select {
		case g := <-granted:
			order = append(order, g)
		case <-time.After(testlog.Bound(time.Minute)):
			t.Fatalf("granted so far: %v", order)
		}
	}
	if order[0] != "c" && order[1] != "c" {
		t.Errorf("grant order %v: c waited behind a's whole queue", order)
	}
}

func waitQueued(t *testing.T, r *runSlots, s *Session, n int) {
	t.Helper()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		r.mu.Lock()
		q := len(s.runs.waiting)
		r.mu.Unlock()
		if q >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d queued, want %d", q, n)
		}
		time.Sleep(time.Millisecond)
	}
}
