package store

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/internal/testlog"
	"github.com/toolfold/toolfold/store/redistest"
)

// startRedis runs a real redis-server for the test (redistest.Start).
func startRedis(t *testing.T, extra ...string) (addr string, stop func()) {
	t.Helper()
	return redistest.Start(t, extra...)
}

// testStore is the contract every Store keeps.
func testStore(t *testing.T, s Store) {
	ctx := context.Background()
	if _, err := s.Get(ctx, "skills/a/SKILL.md"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a missing key: %v, want ErrNotFound", err)
	}
	for _, k := range []string{"skills/a/SKILL.md", "skills/a/main.lua", "skills/b/SKILL.md", "pins/memory.read_graph"} {
		if err := s.Set(ctx, k, []byte("v:"+k)); err != nil {
			t.Fatalf("Set %s: %v", k, err)
		}
	}
	if got, err := s.Get(ctx, "skills/a/main.lua"); err != nil || string(got) != "v:skills/a/main.lua" {
		t.Errorf("Get: %q, %v", got, err)
	}
	keys, err := s.Keys(ctx, "skills/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"skills/a/SKILL.md", "skills/a/main.lua", "skills/b/SKILL.md"}, keys); diff != "" {
		t.Errorf("Keys(skills/) (-want +got):\n%s", diff)
	}
	if err := s.Delete(ctx, "skills/b/SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "skills/b/SKILL.md"); err != nil {
		t.Errorf("deleting a missing key: %v", err)
	}
	if _, err := s.Get(ctx, "skills/b/SKILL.md"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	for _, bad := range []string{"", "../x", "a/../../x", "/abs", "a//b", "a/"} {
		if err := s.Set(ctx, bad, nil); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	for i := 1; i <= 3; i++ {
		n, err := s.Incr(ctx, "rate/x", time.Minute)
		if err != nil || n != int64(i) {
			t.Errorf("Incr #%d: %d, %v", i, n, err)
		}
	}
	if n, _ := s.Incr(ctx, "rate/short", 50*time.Millisecond); n != 1 {
		t.Errorf("first Incr: %d", n)
	}
	time.Sleep(120 * time.Millisecond)
	if n, _ := s.Incr(ctx, "rate/short", 50*time.Millisecond); n != 1 {
		t.Errorf("Incr after the window ended: %d, want a new count of 1", n)
	}
	if err := s.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func TestFiles(t *testing.T) {
	s, err := Open("", t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	testStore(t, s)
	if !strings.HasPrefix(s.String(), "files in ") {
		t.Errorf("String: %q", s)
	}
}

func TestRedis(t *testing.T) {
	addr, _ := startRedis(t)
	s, err := Open("redis://"+addr+"/3", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	testStore(t, s)
	if s.String() != "redis "+addr+"/3" {
		t.Errorf("String: %q", s)
	}
	// Two replicas share keys and counters.
	s2, _ := Open("redis://"+addr+"/3", "", nil)
	defer s2.Close()
	if got, err := s2.Get(context.Background(), "skills/a/main.lua"); err != nil || string(got) != "v:skills/a/main.lua" {
		t.Errorf("the other replica reads %q, %v", got, err)
	}
	if n, _ := s2.Incr(context.Background(), "rate/x", time.Minute); n != 4 {
		t.Errorf("the other replica's Incr: %d, want 4 (shared counter)", n)
	}
}

// TestRedisGoneAndBack: with Redis down, reads answer what this replica
// knew, writes fail at once with an error saying so, nothing hangs; when
// Redis is back the replica carries on.
func TestRedisGoneAndBack(t *testing.T) {
	addr, stop := startRedis(t)
	s, _ := Open("redis://"+addr+"/0", "", nil)
	defer s.Close()
	ctx := context.Background()
	if err := s.Set(ctx, "skills/k/SKILL.md", []byte("known")); err != nil {
		t.Fatal(err)
	}
	stop()
	start := time.Now()
	if got, err := s.Get(ctx, "skills/k/SKILL.md"); err != nil || string(got) != "known" {
		t.Errorf("read with Redis down: %q, %v; want what the replica knew", got, err)
	}
	if keys, err := s.Keys(ctx, "skills/"); err != nil || len(keys) != 1 {
		t.Errorf("Keys with Redis down: %v, %v", keys, err)
	}
	if _, err := s.Get(ctx, "skills/unknown/SKILL.md"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("read of an unknown key with Redis down: %v, want an error that is not ErrNotFound", err)
	}
	err := s.Set(ctx, "skills/new/SKILL.md", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "not saved") {
		t.Errorf("write with Redis down: %v, want an error saying it was not saved", err)
	}
	if _, err := s.Incr(ctx, "rate/y", time.Minute); err == nil {
		t.Error("Incr with Redis down succeeded")
	}
	if s.Ping(ctx) == nil {
		t.Error("Ping with Redis down succeeded")
	}
	// Each call is bounded by opTimeout, and a refused connection fails
	// at once: only a wait without a bound (a hang) takes this long.
	if d := time.Since(start); d > testlog.Bound(30*time.Second) {
		t.Errorf("calls with Redis down took %v in all: something waits", d)
	}
	// Back on the same port.
	_, port, _ := net.SplitHostPort(addr)
	cmd := exec.Command("redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var lastErr error
	for deadline := time.Now().Add(testlog.Bound(time.Minute)); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if lastErr = s.Set(ctx, "skills/new/SKILL.md", []byte("x")); lastErr == nil {
			break
		}
	}
	if lastErr != nil {
		t.Fatalf("no recovery once Redis was back: %v", lastErr)
	}
}

func TestOpenRefusesOtherSchemes(t *testing.T) {
	_, err := Open("memcached://u:secret@h:1", "", nil)
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "redis://") {
		t.Errorf("Open(memcached://…): %v; want an error naming redis:// and hiding the password", err)
	}
	if got := Redact("redis://:pw@h:6379/0"); strings.Contains(got, "pw") {
		t.Errorf("Redact: %s", got)
	}
}
