// Package testlog holds helpers that tests of several packages share. Runs
// captures what a sandbox runner logs about its runs: the sandbox's own
// tests and the proxy's read whether each run used a warm child from the
// same "run finished" lines. Bound stretches a test's hang guard on a slow
// machine.
package testlog

import (
	"context"
	"log/slog"
	"sync"
	"testing"
)

// Runs is a slog.Handler that records the "run finished" lines of a
// runner's log: whether each run used a warm child. Give a runner
// slog.New(&Runs{}) as its logger.
type Runs struct {
	mu   sync.Mutex
	warm []bool
}

func (l *Runs) Enabled(context.Context, slog.Level) bool { return true }
func (l *Runs) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *Runs) WithGroup(string) slog.Handler            { return l }

func (l *Runs) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "run finished" {
		return nil
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "warm" {
			l.mu.Lock()
			l.warm = append(l.warm, a.Value.Bool())
			l.mu.Unlock()
		}
		return true
	})
	return nil
}

// Last reports whether the last run was warm; ok is false before any run.
func (l *Runs) Last() (warm, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.warm) == 0 {
		return false, false
	}
	return l.warm[len(l.warm)-1], true
}

// MustLast is Last for a test that expects a run: it fails t without one.
func (l *Runs) MustLast(t testing.TB) bool {
	t.Helper()
	warm, ok := l.Last()
	if !ok {
		t.Fatal("no run was logged")
	}
	return warm
}
