package config

import (
	"net/url"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Store is the "store:" key: where what outlives a client session and is
// shared between replicas lives (skills, learned usage, tool pins, rate
// counters, the catalog cache).
//
//	store: redis://:${REDIS_PASSWORD}@10.0.0.5:6379/0   # or rediss:// for TLS
//
// Without it, files on this machine, in the .toolfold directory beside the
// config (DefaultStoreDir).
type Store struct {
	URL string // ${VAR}-expanded redis:// or rediss:// URL; "" means files
}

// DefaultStoreDir is where the file store keeps its keys, relative to the
// config's directory.
const DefaultStoreDir = ".toolfold/store"

// StoreDir is the file store's directory: .toolfold/store beside the
// config, or "" when the config was not read from a file.
func (c *Config) StoreDir() string {
	if c.File == "" {
		return ""
	}
	return filepath.Join(c.Dir, filepath.FromSlash(DefaultStoreDir))
}

func (d *decoder) store(n *yaml.Node, st *Store, x *expander) {
	if isNull(n) {
		return
	}
	s, ok := d.str(n, "store")
	if !ok {
		return
	}
	v, errs := x.expand(s)
	for _, msg := range errs {
		d.errorf(n, "store", "%s", msg)
	}
	if len(errs) > 0 {
		return
	}
	v = strings.TrimSpace(v)
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Host == "":
		d.errorf(n, "store", "want a URL like redis://HOST:6379/0 (rediss:// for TLS), or leave store out for files on this machine")
	case u.Scheme != "redis" && u.Scheme != "rediss":
		d.errorf(n, "store", "scheme %q is not supported: use redis:// or rediss:// (Redis 7 or later), or leave store out for files on this machine", u.Scheme)
	default:
		st.URL = v
	}
}
