package policy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/toolfold/toolfold/store"
)

// Counter counts calls in fixed windows. Incr adds 1 to the counter key
// and returns its new value; a counter starts at 0 and is forgotten ttl
// after its first increment. store.Store is a Counter: pass the shared
// store (Redis) so that every replica counts together.
type Counter interface {
	Incr(ctx context.Context, key string, ttl time.Duration) (int64, error)
}

var (
	_ Counter = (*MemCounter)(nil)
	_ Counter = store.Store(nil)
)

// MemCounter is a Counter in this process's memory. The zero value is not
// ready; use NewMemCounter.
type MemCounter struct {
	now func() time.Time

	mu sync.Mutex
	m  map[string]*count
}

type count struct {
	n   int64
	end time.Time
}

// NewMemCounter returns an empty MemCounter.
func NewMemCounter() *MemCounter {
	return &MemCounter{now: time.Now, m: map[string]*count{}}
}

// Incr implements Counter.
func (c *MemCounter) Incr(_ context.Context, key string, ttl time.Duration) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	e := c.m[key]
	if e == nil || !now.Before(e.end) {
		e = &count{end: now.Add(ttl)}
		c.m[key] = e
		if len(c.m) > 4096 { // drop the ended ones now and then
			for k, v := range c.m {
				if !now.Before(v.end) {
					delete(c.m, k)
				}
			}
		}
	}
	e.n++
	return e.n, nil
}

// Limit counts one call that decision d lets through against the rate of
// its rule, for the client session session. It returns nil when the rule
// has no rate or the call is within it, else a *Refusal (ReasonRateLimited)
// that says when to retry. Windows are fixed and aligned to the clock
// (a minute's window ends on the minute), so the retry time is exact.
// A counter that fails (Redis away) is replaced for that call by a count
// in this process's memory, with a warning in the log: the limit then holds
// per replica rather than across them, and is never lifted.
func (p *Policy) Limit(ctx context.Context, tool string, d Decision, session string) error {
	r := d.Rule.Rate
	if p == nil || r.Limit == 0 || d.Action == Deny {
		return nil
	}
	now := p.now()
	win := now.UnixNano() / int64(r.Window)
	key := fmt.Sprintf("rate/r%d-%s/%s/%d", d.Rule.Index, short(d.Rule.Text), scope(r.PerAll, session), win)
	n, err := p.counter.Incr(ctx, key, r.Window)
	if err != nil {
		p.log.Warn("policy: rate counter failed; counting in this process's memory until the store answers", "tool", tool, "rule", d.Rule.String(), "err", err)
		n, _ = p.local.Incr(ctx, key, r.Window)
	}
	if n <= int64(r.Limit) {
		return nil
	}
	end := time.Unix(0, (win+1)*int64(r.Window))
	return &Refusal{Tool: tool, Reason: ReasonRateLimited, Rule: d.Rule, RetryAfter: end.Sub(now)}
}

func (p *Policy) now() time.Time {
	if p.clock != nil {
		return p.clock()
	}
	return time.Now()
}

// scope is the part of a rate key that says whose calls it counts. A
// session id is hashed: it may be long, and keys end up in a shared store.
func scope(all bool, session string) string {
	if all {
		return "all"
	}
	return "s-" + short(session)
}

// short is a short stable hash of s, safe in a store key.
func short(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:8])
}
