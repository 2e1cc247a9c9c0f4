package testlog

import (
	"log/slog"
	"testing"
)

func TestRuns(t *testing.T) {
	l := &Runs{}
	log := slog.New(l).With("runner", "lua")
	if _, ok := l.Last(); ok {
		t.Fatal("a run before any was logged")
	}
	log.Debug("run finished", "warm", true)
	log.Info("something else", "warm", false)
	if warm, ok := l.Last(); !ok || !warm {
		t.Fatalf("after a warm run: %v %v", warm, ok)
	}
	log.Debug("run finished", "warm", false)
	if l.MustLast(t) {
		t.Fatal("after a cold run: warm")
	}
}
