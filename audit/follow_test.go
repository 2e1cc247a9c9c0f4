package audit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// line is an audit line for tool, with pad bytes of arguments.
func line(session, tool string, pad int) string {
	return fmt.Sprintf(`{"time":"2026-11-26T12:00:00Z","kind":"call","session":%q,"tool":%q,"duration_ms":1,"result_bytes":0,"is_error":false,"args":%q}`+"\n",
		session, tool, strings.Repeat("x", pad))
}

func appendTo(t *testing.T, file, s string) {
	t.Helper()
	fh, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, err := fh.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestFollow(t *testing.T) {
	// Follow passes on the backups' and the file's entries, then each one
	// appended, through a line written in two pieces, a rotation (rename
	// and a new file, as the audit rotates) and a truncation; entries the
	// filter leaves out never come; it ends with ctx.
	dir := t.TempDir()
	file := filepath.Join(dir, "audit.jsonl")
	appendTo(t, filepath.Join(dir, "audit-2026-11-26T11-00-00.000.jsonl"), line("s", "a.backup", 0))
	appendTo(t, file, line("s", "b.live", 0)+line("other", "x.filtered", 0))

	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 16)
	done := make(chan error, 1)
	go func() {
		done <- Follow(ctx, file, Filter{Session: "s"}, func(e Entry) { got <- e.Tool }, &FollowOptions{Poll: 5 * time.Millisecond})
	}()
	expect := func(want ...string) {
		t.Helper()
		for _, w := range want {
			select {
			case tool := <-got:
				if tool != w {
					t.Fatalf("followed %q, want %q", tool, w)
				}
			case err := <-done:
				t.Fatalf("Follow ended early: %v (waiting for %q)", err, w)
			case <-time.After(2 * time.Minute): // a hang, not a slow machine
				t.Fatalf("Follow passed on nothing in two minutes, waiting for %q", w)
			}
		}
	}
	expect("a.backup", "b.live")

	c := line("s", "c.split", 0)
	appendTo(t, file, c[:20])
	appendTo(t, file, c[20:])
	expect("c.split")

	appendTo(t, file, line("s", "d.before-rotation", 0))
	if err := os.Rename(file, filepath.Join(dir, "audit-2026-11-26T12-00-00.000.jsonl")); err != nil {
		t.Fatal(err)
	}
	appendTo(t, file, line("s", "e.after-rotation", 2000))
	expect("d.before-rotation", "e.after-rotation")

	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, file, line("s", "f.after-truncation", 0))
	expect("f.after-truncation")

	cancel()
	if err := <-done; err != nil {
		t.Errorf("Follow after cancel = %v, want nil", err)
	}
	select {
	case tool := <-got:
		t.Errorf("followed %q, which the filter leaves out or was never written", tool)
	default:
	}
}

func TestFollowWaitsForTheFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "audit.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	got := make(chan string, 1)
	go Follow(ctx, file, Filter{}, func(e Entry) { got <- e.Tool }, &FollowOptions{Poll: 5 * time.Millisecond})
	appendTo(t, file, line("s", "first.entry", 0))
	if tool := <-got; tool != "first.entry" {
		t.Errorf("followed %q", tool)
	}
}
