package workspace

import (
	"context"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

// A session that filled its share leaves a slot for another session.
func TestRunSlotsLeaveOneForAnother(t *testing.T) {
	r := NewSlots(4)
	a, b := &Owner{}, &Owner{}
	for range 3 {
		if _, _, err := r.Acquire(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := r.Acquire(ctx, a); err == nil {
		t.Fatal("a session took every slot")
	}
	release, waited, err := r.Acquire(context.Background(), b)
	if err != nil || waited != 0 {
		t.Fatalf("another session waited %v (err %v) with a slot kept free", waited, err)
	}
	release()
}

// Freed slots go to waiting sessions in turn, not in arrival order: a
// session that queued one run behind another's three gets the second
// slot freed, not the fourth.
func TestRunSlotsRoundRobin(t *testing.T) {
	r := NewSlots(2) // a share of one slot each
	a, b, c := &Owner{}, &Owner{}, &Owner{}
	relA, _, _ := r.Acquire(context.Background(), a)
	relB, _, _ := r.Acquire(context.Background(), b)
	granted := make(chan string, 8)
	wait := func(name string, s *Owner) {
		rel, _, err := r.Acquire(context.Background(), s)
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

func waitQueued(t *testing.T, r *Slots, o *Owner, n int) {
	t.Helper()
	deadline := time.Now().Add(testlog.Bound(time.Minute))
	for {
		r.mu.Lock()
		q := len(o.slots.waiting)
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
