package store

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// ErrUnauthenticated is returned (wrapped) by a Signed store's Get for a
// value that does not carry a valid MAC under its key: written by someone
// without the store key (a Redis neighbour), or with another key.
var ErrUnauthenticated = errors.New("not signed with the store key")

// MinKeyLen is the shortest store key Signed accepts, in bytes.
const MinKeyLen = 16

// sigMagic starts every signed value: "tfsig1 " + 64 hex digits + "\n".
const sigMagic = "tfsig1 "

const sigLen = len(sigMagic) + 2*sha256.Size + 1

// signed is a Store whose values carry an HMAC-SHA256 over the key name
// and the value, under a key the replicas share and the store never sees.
type signed struct {
	Store
	key []byte
	log *slog.Logger

	mu     sync.Mutex
	logged map[string]bool // key+value MACs already logged as refused
}

// Signed wraps st so that every value Set writes is signed with key, and
// every value Get reads back is checked: one without a valid MAC is
// refused (ErrUnauthenticated), with a warning in log naming the key (never
// the value or the MAC). Counters (Incr) cannot be signed and pass through.
// The key is never written to st.
func Signed(st Store, key []byte, log *slog.Logger) (Store, error) {
	if len(key) < MinKeyLen {
		return nil, fmt.Errorf("store: the store key is %d bytes; use at least %d (openssl rand -hex 32)", len(key), MinKeyLen)
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &signed{Store: st, key: bytes.Clone(key), log: log, logged: map[string]bool{}}, nil
}

// mac is the HMAC of a key name and its value. The name cannot hold NUL
// (checkKey), so the two cannot be confused.
func (s *signed) mac(key string, val []byte) []byte {
	h := hmac.New(sha256.New, s.key)
	h.Write([]byte("toolfold store v1\x00"))
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write(val)
	return h.Sum(nil)
}

func (s *signed) Get(ctx context.Context, key string) ([]byte, error) {
	b, err := s.Store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	val, ok := s.open(key, b)
	if !ok {
		s.refused(key, b)
		return nil, fmt.Errorf("store %s: %s: %w; refused (remove it, or save it again from toolfold)", s.Store, key, ErrUnauthenticated)
	}
	return val, nil
}

// open returns the value inside b when b carries key's valid MAC.
func (s *signed) open(key string, b []byte) ([]byte, bool) {
	if len(b) < sigLen || string(b[:len(sigMagic)]) != sigMagic || b[sigLen-1] != '\n' {
		return nil, false
	}
	got, err := hex.DecodeString(string(b[len(sigMagic) : sigLen-1]))
	if err != nil {
		return nil, false
	}
	val := b[sigLen:]
	return val, hmac.Equal(got, s.mac(key, val))
}

// refused logs a refused value once per key and value.
func (s *signed) refused(key string, b []byte) {
	sum := sha256.Sum256(b)
	id := key + "\x00" + string(sum[:])
	s.mu.Lock()
	seen := s.logged[id]
	if !seen && len(s.logged) < 4096 {
		s.logged[id] = true
	}
	s.mu.Unlock()
	if !seen {
		s.log.Warn("store: refused an entry not signed with the store key; someone who can write the store but lacks the key wrote it, or a replica runs with another store.key",
			"component", "store", "key", key, "store", s.Store.String())
	}
}

func (s *signed) Set(ctx context.Context, key string, val []byte) error {
	b := make([]byte, 0, sigLen+len(val))
	b = append(b, sigMagic...)
	b = hex.AppendEncode(b, s.mac(key, val))
	b = append(b, '\n')
	b = append(b, val...)
	return s.Store.Set(ctx, key, b)
}

func (s *signed) Incr(ctx context.Context, key string, window time.Duration) (int64, error) {
	return s.Store.Incr(ctx, key, window)
}

func (s *signed) String() string { return s.Store.String() + ", entries signed" }

// Refused lists the keys under each prefix whose values st refuses as
// unauthenticated (none unless st is Signed), for toolfold check.
func Refused(ctx context.Context, st Store, prefixes ...string) ([]string, error) {
	var bad []string
	for _, p := range prefixes {
		keys, err := st.Keys(ctx, p)
		if err != nil {
			return bad, err
		}
		for _, k := range keys {
			if _, err := st.Get(ctx, k); errors.Is(err, ErrUnauthenticated) {
				bad = append(bad, k)
			}
		}
	}
	return bad, nil
}
