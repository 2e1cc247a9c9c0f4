package store

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// opTimeout bounds every Redis operation: a Redis that went away costs a
// request this much, never a hang.
const opTimeout = 500 * time.Millisecond

// keyPrefix namespaces toolfold's keys, so a Redis can be shared.
const keyPrefix = "toolfold:"

// fallbackMax bounds the values a replica keeps to answer reads while
// Redis is away.
const fallbackMax = 64 << 20

type redisStore struct {
	c    *redis.Client
	name string

	mu    sync.Mutex
	last  map[string][]byte // what this replica last read or wrote, per key
	bytes int
}

func init() { redis.SetLogger(quiet{}) } // its pool's messages may quote addresses; errors reach us anyway

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

// Redis returns a Store on the Redis server rawURL names
// (redis://[USER:PASSWORD@]HOST:PORT/DB, rediss:// for TLS, verified
// against the system's roots or o.CAFile's).
func Redis(rawURL string, o *Options) (Store, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %v", Redact(rawURL), err)
	}
	if err := setTLS(opts, o); err != nil {
		return nil, fmt.Errorf("store: %s: %w", Redact(rawURL), err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout, opts.PoolTimeout = opTimeout, opTimeout, opTimeout, opTimeout
	opts.MaxRetries = 1
	opts.ContextTimeoutEnabled = true
	opts.DisableIdentity = true // no CLIENT SETINFO: older servers and proxies refuse it
	return &redisStore{
		c:    redis.NewClient(opts),
		name: fmt.Sprintf("redis %s/%d", opts.Addr, opts.DB),
		last: map[string][]byte{},
	}, nil
}

// setTLS completes a rediss:// URL's TLS settings: at least TLS 1.2, the
// roots of o.CAFile when set. A CA file with redis:// is an error: the
// connection would not be encrypted.
func setTLS(opts *redis.Options, o *Options) error {
	if o == nil || o.CAFile == "" {
		return nil
	}
	if opts.TLSConfig == nil {
		return fmt.Errorf("a CA file (store.tls_ca) needs a rediss:// URL: redis:// is not encrypted")
	}
	pem, err := os.ReadFile(o.CAFile)
	if err != nil {
		return fmt.Errorf("reading the CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return fmt.Errorf("the CA file %s holds no PEM certificate", o.CAFile)
	}
	opts.TLSConfig.RootCAs = pool
	return nil
}

func (r *redisStore) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, opTimeout)
}

// unreachable wraps a failed write.
func (r *redisStore) unreachable(op, key string, err error) error {
	return fmt.Errorf("store %s: %s %s: not saved, Redis did not answer (%v); retry once it is back (toolfold check shows the store)", r.name, op, key, err)
}

func (r *redisStore) remember(key string, val []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, had := r.last[key]
	if val == nil {
		if had {
			r.bytes -= len(old)
			delete(r.last, key)
		}
		return
	}
	if r.bytes-len(old)+len(val) > fallbackMax {
		return
	}
	r.bytes += len(val) - len(old)
	r.last[key] = slices.Clone(val)
}

func (r *redisStore) Get(ctx context.Context, key string) ([]byte, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	b, err := r.c.Get(ctx, keyPrefix+key).Bytes()
	switch {
	case errors.Is(err, redis.Nil):
		r.remember(key, nil)
		return nil, ErrNotFound
	case err != nil:
		r.mu.Lock()
		old, ok := r.last[key]
		r.mu.Unlock()
		if ok {
			return slices.Clone(old), nil // stale, but what this replica knew
		}
		return nil, fmt.Errorf("store %s: reading %s: Redis did not answer (%v)", r.name, key, err)
	}
	r.remember(key, b)
	return b, nil
}

func (r *redisStore) Set(ctx context.Context, key string, val []byte) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	if err := r.c.Set(ctx, keyPrefix+key, val, 0).Err(); err != nil {
		return r.unreachable("writing", key, err)
	}
	r.remember(key, val)
	return nil
}

func (r *redisStore) Delete(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	if err := r.c.Del(ctx, keyPrefix+key).Err(); err != nil {
		return r.unreachable("removing", key, err)
	}
	r.remember(key, nil)
	return nil
}

func (r *redisStore) Keys(ctx context.Context, prefix string) ([]string, error) {
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	var keys []string
	it := r.c.Scan(ctx, 0, keyPrefix+escapeGlob(prefix)+"*", 1000).Iterator()
	for it.Next(ctx) {
		keys = append(keys, strings.TrimPrefix(it.Val(), keyPrefix))
	}
	if err := it.Err(); err != nil {
		r.mu.Lock()
		for k := range r.last {
			if strings.HasPrefix(k, prefix) {
				keys = append(keys, k)
			}
		}
		r.mu.Unlock()
		if len(keys) == 0 {
			return nil, fmt.Errorf("store %s: listing %s: Redis did not answer (%v)", r.name, prefix, err)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

func (r *redisStore) Incr(ctx context.Context, key string, window time.Duration) (int64, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	var incr *redis.IntCmd
	_, err := r.c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		incr = p.Incr(ctx, keyPrefix+key)
		p.Do(ctx, "PEXPIRE", keyPrefix+key, max(window.Milliseconds(), 1), "NX") // Redis ≥ 7.0
		return nil
	})
	if err != nil {
		return 0, r.unreachable("counting", key, err)
	}
	return incr.Val(), nil
}

func (r *redisStore) Ping(ctx context.Context) error {
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	if err := r.c.Ping(ctx).Err(); err != nil {
		return fmt.Errorf("store %s: %v", r.name, err)
	}
	return nil
}

func (r *redisStore) Close() error   { return r.c.Close() }
func (r *redisStore) String() string { return r.name }

// escapeGlob quotes SCAN MATCH's special characters.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}
