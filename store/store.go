package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// ErrNotFound is returned by Get for a key that holds nothing.
var ErrNotFound = errors.New("not found")

// Store is shared key-value state. Every method is safe for concurrent use.
type Store interface {
	// Get returns the value of key, or ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Set stores val under key, replacing what was there, atomically: a
	// reader sees the old value or the new one, never a part.
	Set(ctx context.Context, key string, val []byte) error
	// Delete removes key; removing a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Keys lists the keys that start with prefix, sorted.
	Keys(ctx context.Context, prefix string) ([]string, error)
	// Incr adds 1 to the counter key and returns its new value. A counter
	// starts at 0 and ends window after its first increment (a fixed
	// window, for rate limits).
	Incr(ctx context.Context, key string, window time.Duration) (int64, error)
	// Ping reports whether the store answers (/readyz).
	Ping(ctx context.Context) error
	// Close releases the store's connections.
	Close() error
	// String names the store for `toolfold check` and logs, without a
	// password: "files in /home/me/.toolfold", "redis 10.0.0.5:6379/0".
	String() string
}

// Options are how to reach a Redis store beyond its URL. The zero value
// (or nil) is a URL alone.
type Options struct {
	// CAFile is a PEM file of the certificate authorities that a rediss://
	// server's certificate must chain to, instead of the system's.
	CAFile string
}

// Open opens the store a config names: "" is Files(dir), redis:// and
// rediss:// URLs are Redis (a password or ACL user as
// redis://USER:PASSWORD@HOST:PORT/DB). Opening Redis does not connect: a
// Redis that is not up yet is retried on use.
func Open(rawURL, dir string, o *Options) (Store, error) {
	if rawURL == "" {
		return Files(dir)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %v", Redact(rawURL), err)
	}
	switch u.Scheme {
	case "redis", "rediss":
		return Redis(rawURL, o)
	}
	return nil, fmt.Errorf("store: %s: want redis://HOST:PORT/DB or rediss://…, or no store: for files on this machine", Redact(rawURL))
}

// Redact hides a password in a store URL.
func Redact(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.User == nil {
		return rawURL
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// checkKey refuses keys that could escape a directory or are empty.
func checkKey(key string) error {
	if key == "" || strings.HasPrefix(key, "/") || strings.HasSuffix(key, "/") {
		return fmt.Errorf("store: bad key %q", key)
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\x00\\") {
			return fmt.Errorf("store: bad key %q", key)
		}
	}
	return nil
}
