package main

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
)

// lockedBuffer is a strings.Builder safe to read while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestAuditFollow(t *testing.T) {
	// --follow prints the records so far, then one written while it runs,
	// and ends with its context (Ctrl-C) with exit 0.
	file := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := audit.Open(config.Audit{File: file, MaxSizeMB: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Write(audit.Record{Kind: audit.KindCall, Session: "s1", Tool: "memory.read_graph", Decision: "allow"})
	ctx, cancel := context.WithCancel(context.Background())
	var out, errs lockedBuffer
	done := make(chan int, 1)
	go func() { done <- cmdAudit(ctx, []string{"--file", file, "--follow"}, &out, &errs, time.Now()) }()
	waitFor := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(out.String(), want); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) { // a hang, not a slow machine
				t.Fatalf("--follow never printed %q:\n%s%s", want, out.String(), errs.String())
			}
		}
	}
	waitFor("memory.read_graph")
	l.Write(audit.Record{Kind: audit.KindCall, Session: "s1", Tool: "memory.delete_entities", Decision: "deny"})
	waitFor("memory.delete_entities")
	cancel()
	if code := <-done; code != exitOK {
		t.Errorf("exit %d after cancel\n%s", code, errs.String())
	}
	if !strings.HasPrefix(out.String(), "TIME (UTC)") {
		t.Errorf("no header:\n%s", out.String())
	}
}
