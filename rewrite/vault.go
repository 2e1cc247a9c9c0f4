package rewrite

import (
	"container/list"
	"context"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Limits bound one vault. Zero fields take the defaults.
type Limits struct {
	MaxEntries int           // default 10,000 values
	MaxBytes   int64         // default 4 MiB of values and tokens
	TTL        time.Duration // an entry unused this long is forgotten; default 1h
}

// DefaultLimits are the limits of a vault when none are given.
var DefaultLimits = Limits{MaxEntries: 10000, MaxBytes: 4 << 20, TTL: time.Hour}

func (l Limits) withDefaults() Limits {
	if l.MaxEntries <= 0 {
		l.MaxEntries = DefaultLimits.MaxEntries
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	if l.TTL <= 0 {
		l.TTL = DefaultLimits.TTL
	}
	return l
}

// Vault maps values to tokens for one client session. It is safe for
// concurrent use. When full, the least recently used entry is forgotten;
// token numbers are never reused, so a forgotten token is unknown (it
// passes through unchanged) rather than someone else's value.
//
// Each entry remembers where its value came from: the qualified tool
// whose result minted it (server.tool, skills.NAME), or OriginClient for a
// value the client or its script typed. A Vault mints with its origin:
// From returns a view of the same vault that mints with another one.
type Vault struct {
	*vaultCore
	origin string // what minting through this view records; "" unknown
}

// Origins a vault entry can have besides a qualified tool name.
const (
	// OriginClient marks a value the client or its script typed (found in
	// a call's arguments or in what a run printed), not a server's.
	OriginClient = "client"
	// maxOrigins bounds the origins an entry keeps: the first minter and
	// the next tools whose results held the same value.
	maxOrigins = 4
)

// vaultCore is the state every view of one vault shares.
type vaultCore struct {
	det    *Detector
	limits Limits
	now    func() time.Time

	mu      sync.Mutex
	byValue map[string]*list.Element // value → entry
	byToken map[string]*list.Element // token → entry
	lru     list.List                // of *entry, most recent first
	next    map[string]int           // type → last number given
	bytes   int64
}

type entry struct {
	value, token string
	used         time.Time
	origins      []string // the first minter first; at most maxOrigins
}

// NewVault makes an empty vault that finds values with d.
func NewVault(d *Detector, l Limits) *Vault {
	return &Vault{vaultCore: &vaultCore{
		det:     d,
		limits:  l.withDefaults(),
		now:     time.Now,
		byValue: make(map[string]*list.Element),
		byToken: make(map[string]*list.Element),
		next:    make(map[string]int),
	}}
}

// From is a view of v that records origin (a qualified tool name, or
// OriginClient) on what it mints; a value already held keeps its first
// origin and gains origin as another. Values, tokens and limits are v's.
// A nil v gives nil.
func (v *Vault) From(origin string) *Vault {
	if v == nil {
		return nil
	}
	return &Vault{vaultCore: v.vaultCore, origin: origin}
}

// Origin is what minting through v records.
func (v *Vault) Origin() string { return v.origin }

// Len reports the number of values held.
func (v *Vault) Len() int {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.lru.Len()
}

// LogValue makes a vault safe to log: counts only, never values.
func (v *Vault) LogValue() slog.Value {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slog.GroupValue(slog.Int("entries", v.lru.Len()), slog.Int64("bytes", v.bytes))
}

// String never shows values either.
func (v *Vault) String() string { return "rewrite.Vault(" + strconv.Itoa(v.Len()) + " entries)" }

// token returns the token for value of type typ, minting one if needed.
// Called with v.mu held.
func (v *Vault) token(typ, value string, now time.Time) string {
	if e, ok := v.byValue[value]; ok {
		en := e.Value.(*entry)
		if now.Sub(en.used) <= v.limits.TTL {
			en.used = now
			v.lru.MoveToFront(e)
			en.addOrigin(v.origin)
			return en.token
		}
		v.remove(e)
	}
	v.next[typ]++
	tok := "[" + typ + "_" + strconv.Itoa(v.next[typ]) + "]"
	en := &entry{value: value, token: tok, used: now, origins: []string{v.origin}}
	e := v.lru.PushFront(en)
	v.byValue[value] = e
	v.byToken[tok] = e
	v.bytes += int64(len(value) + len(tok))
	v.evict(now)
	return tok
}

// addOrigin records that origin's result held the value too. The client
// is recorded only as the first origin: a script that prints or passes a
// value a server gave (decoded from a field the detectors did not read)
// must not make it the client's, free to go anywhere.
func (en *entry) addOrigin(origin string) {
	if origin != OriginClient && len(en.origins) < maxOrigins && !slices.Contains(en.origins, origin) {
		en.origins = append(en.origins, origin)
	}
}

// evict drops expired entries and, beyond the limits, the least recently
// used ones. The newest entry always stays.
func (v *Vault) evict(now time.Time) {
	for v.lru.Len() > 1 {
		last := v.lru.Back()
		en := last.Value.(*entry)
		if v.lru.Len() <= v.limits.MaxEntries && v.bytes <= v.limits.MaxBytes && now.Sub(en.used) <= v.limits.TTL {
			return
		}
		v.remove(last)
	}
}

func (v *Vault) remove(e *list.Element) {
	en := e.Value.(*entry)
	v.lru.Remove(e)
	delete(v.byValue, en.value)
	delete(v.byToken, en.token)
	v.bytes -= int64(len(en.value) + len(en.token))
}

// lookup returns the value of a token the vault knows and has not expired.
// Called with v.mu held.
func (v *Vault) lookup(tok string, now time.Time) (string, bool) {
	e, ok := v.byToken[tok]
	if !ok {
		return "", false
	}
	en := e.Value.(*entry)
	if now.Sub(en.used) > v.limits.TTL {
		v.remove(e)
		return "", false
	}
	en.used = now
	v.lru.MoveToFront(e)
	return en.value, true
}

type ctxKey struct{}

// NewContext returns ctx carrying v: the vault of the client session the
// work is done for.
func NewContext(ctx context.Context, v *Vault) context.Context {
	return context.WithValue(ctx, ctxKey{}, v)
}

// FromContext returns the vault ctx carries, or nil.
func FromContext(ctx context.Context) *Vault {
	v, _ := ctx.Value(ctxKey{}).(*Vault)
	return v
}
