package policy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/store"
)

// clock is a settable time for tests.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestLimit(t *testing.T) {
	ctx := context.Background()
	src := "upstreams:\n  mail: {command: x}\npolicy:\n  rules:\n    - {match: mail.send_*, rate: 2/min}\n    - {match: mail.blast, rate: 1/h, per: all}\n"
	cfg, err := config.Parse("proxy.yaml", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	clk := &clock{time.Date(2026, 1, 1, 10, 0, 15, 0, time.UTC)}
	mem := NewMemCounter()
	mem.now = clk.now
	p := New(cfg.Policy, &Options{Counter: mem})
	p.clock = clk.now
	call := func(tool, session string) error {
		_, err := p.Authorize(ctx, Call{Tool: Tool{Name: tool}, Session: session}, nil, nil)
		return err
	}
	steps := []struct {
		advance       time.Duration
		tool, session string
		retry         time.Duration // 0: allowed
	}{
		{0, "mail.send_a", "s1", 0},
		{0, "mail.send_b", "s1", 0}, // the rule counts both tools
		{0, "mail.send_a", "s1", 45 * time.Second},
		{0, "mail.send_a", "s2", 0}, // per session
		{45 * time.Second, "mail.send_a", "s1", 0},
		{0, "mail.blast", "s1", 0},
		{0, "mail.blast", "s2", 59 * time.Minute}, // per: all; 10:01 now
	}
	for i, s := range steps {
		clk.t = clk.t.Add(s.advance)
		err := call(s.tool, s.session)
		var r *Refusal
		switch {
		case s.retry == 0 && err != nil:
			t.Errorf("step %d (%s, %s): %v", i, s.tool, s.session, err)
		case s.retry != 0 && !errors.As(err, &r):
			t.Errorf("step %d (%s, %s): err = %v, want a rate refusal", i, s.tool, s.session, err)
		case s.retry != 0 && (r.Reason != ReasonRateLimited || r.RetryAfter != s.retry):
			t.Errorf("step %d: %s, retry after %v; want rate_limited after %v", i, r.Reason, r.RetryAfter, s.retry)
		}
	}
}

type brokenCounter struct{}

func (brokenCounter) Incr(context.Context, string, time.Duration) (int64, error) {
	return 0, errors.New("redis away")
}

func TestMemCounterExpires(t *testing.T) {
	clk := &clock{time.Unix(1000, 0)}
	c := NewMemCounter()
	c.now = clk.now
	ctx := context.Background()
	for want := int64(1); want <= 3; want++ {
		if n, _ := c.Incr(ctx, "k", time.Second); n != want {
			t.Fatalf("Incr = %d, want %d", n, want)
		}
	}
	clk.t = clk.t.Add(time.Second)
	if n, _ := c.Incr(ctx, "k", time.Second); n != 1 {
		t.Errorf("after the window: Incr = %d, want 1", n)
	}
}

// The file store's counter is a Counter too (and so is Redis's).
func TestStoreCounts(t *testing.T) {
	st, err := store.Files(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := New(config.Policy{Rules: []config.PolicyRule{{Match: "a.*", Action: "allow", Rate: config.PolicyRate{Limit: 1, Window: time.Hour}}}},
		&Options{Counter: st})
	ctx := context.Background()
	if _, err := p.Authorize(ctx, Call{Tool: Tool{Name: "a.b"}, Session: "x/../y"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Authorize(ctx, Call{Tool: Tool{Name: "a.b"}, Session: "x/../y"}, nil, nil); err == nil {
		t.Error("the second call in the hour passed")
	}
}

// TestLimitCounterFails: a counter that cannot be read (Redis away) does
// not lift the limit: 2/min per: all lets 2 of 4 calls through, counted in
// this process, and the log says so.
func TestLimitCounterFails(t *testing.T) {
	var logBuf strings.Builder
	p := New(config.Policy{Rules: []config.PolicyRule{{Match: "mail.send", Action: "allow",
		Rate: config.PolicyRate{Limit: 2, Window: time.Minute, PerAll: true}}}},
		&Options{Counter: brokenCounter{}, Logger: slog.New(slog.NewTextHandler(&logBuf, nil))})
	passed := 0
	for i := range 4 {
		if _, err := p.Authorize(context.Background(), Call{Tool: Tool{Name: "mail.send"}, Session: fmt.Sprint("s", i)}, nil, nil); err == nil {
			passed++
		}
	}
	if passed != 2 {
		t.Errorf("%d of 4 calls passed with the counter failing; want 2", passed)
	}
	if !strings.Contains(logBuf.String(), "counting in this process") {
		t.Errorf("log does not say the limit is counted locally:\n%s", logBuf.String())
	}
}
