package config

import (
	"net/url"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// Store is the "store:" key: where what outlives a client session and is
// shared between replicas lives (skills, learned usage, tool pins, rate
// counters, the catalog cache). A URL alone, or a mapping:
//
//	store:
//	  url: rediss://toolfold:${REDIS_PASSWORD}@10.0.0.5:6379/0
//	  key: ${TOOLFOLD_STORE_KEY}    # signs every entry; the same on every replica
//	  tls_ca: /etc/toolfold/redis-ca.pem
//
// Without a URL, files on this machine, in the .toolfold directory beside
// the config (DefaultStoreDir). The store is a trust root: with Redis a key
// is required, so that a Redis writer without it cannot plant a skill or
// approve a pin; the file store signs its entries when a key is set and
// otherwise relies on its directory being toolfold's alone (0700).
type Store struct {
	URL   string // ${VAR}-expanded redis:// or rediss:// URL; "" means files
	Key   string // ${VAR}-expanded HMAC key for the entries; required with URL
	TLSCA string // PEM file of the CAs a rediss:// server's certificate chains to
}

// MinStoreKeyLen is the shortest store.key accepted, in bytes.
const MinStoreKeyLen = 16

var storeKeys = []string{"url", "key", "tls_ca"}

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

func (d *decoder) store(n *yaml.Node, st *Store, dir string, x *expander) {
	if isNull(n) {
		return
	}
	if n.Kind == yaml.ScalarNode {
		st.URL = d.storeURL(n, "store", x)
	} else if fs, ok := d.mapping(n, "store", "a URL (redis://HOST:6379/0) or a mapping with url, key and tls_ca"); ok {
		for _, f := range fs {
			p := join("store", f.name)
			switch f.name {
			case "url":
				st.URL = d.storeURL(f.val, p, x)
			case "key":
				st.Key = d.expanded(f.val, p, x)
				if st.Key != "" && len(st.Key) < MinStoreKeyLen {
					d.errorf(f.val, p, "the key is %d bytes; use at least %d, e.g. export TOOLFOLD_STORE_KEY=$(openssl rand -hex 32)", len(st.Key), MinStoreKeyLen)
				}
			case "tls_ca":
				st.TLSCA, _ = d.path(f.val, p, dir, x, "must be a PEM file of CA certificates")
			default:
				d.errorf(f.key, p, "%s", unknownKey(f.name, storeKeys))
			}
		}
	}
	switch {
	case st.URL != "" && st.Key == "":
		d.errorf(n, "store.key", "required with a Redis store: every replica signs skills and pins with it, so that whoever can write Redis cannot plant a skill or approve a tool; "+
			"write store: {url: ..., key: ${TOOLFOLD_STORE_KEY}} and export TOOLFOLD_STORE_KEY=$(openssl rand -hex 32), the same on every replica")
	case st.TLSCA != "" && !strings.HasPrefix(st.URL, "rediss://"):
		d.errorf(n, "store.tls_ca", "needs a rediss:// url: redis:// is not encrypted")
	}
}

// storeURL reads a store URL: redis:// or rediss://.
func (d *decoder) storeURL(n *yaml.Node, path string, x *expander) string {
	v := strings.TrimSpace(d.expanded(n, path, x))
	if v == "" {
		return ""
	}
	u, err := url.Parse(v)
	switch {
	case err != nil || u.Host == "":
		d.errorf(n, path, "want a URL like redis://HOST:6379/0 (rediss:// for TLS), or leave store out for files on this machine")
	case u.Scheme != "redis" && u.Scheme != "rediss":
		d.errorf(n, path, "scheme %q is not supported: use redis:// or rediss:// (Redis 7 or later), or leave store out for files on this machine", u.Scheme)
	default:
		return v
	}
	return ""
}

// expanded reads a string with its ${VAR}s expanded.
func (d *decoder) expanded(n *yaml.Node, path string, x *expander) string {
	s, ok := d.str(n, path)
	if !ok {
		return ""
	}
	v, errs := x.expand(s)
	for _, msg := range errs {
		d.errorf(n, path, "%s", msg)
	}
	if len(errs) > 0 {
		return ""
	}
	return v
}
