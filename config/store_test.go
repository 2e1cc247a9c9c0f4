package config

import (
	"strings"
	"testing"
)

// TestStoreKey: a Redis store needs a key (the store is a trust root); the
// mapping form reads url, key and tls_ca with ${VAR}s; a short key, a CA
// file over redis:// and an unknown field are errors that say what to do.
func TestStoreKey(t *testing.T) {
	vars := env(map[string]string{"K": "0123456789abcdef0123", "PW": "pw"})
	cfg, err := Parse("/etc/t/test.yaml", []byte("upstreams: {a: {command: x}}\nstore:\n  url: rediss://u:${PW}@h:6380/1\n  key: ${K}\n  tls_ca: ca.pem\n"), vars)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Store.URL != "rediss://u:pw@h:6380/1" || cfg.Store.Key != "0123456789abcdef0123" || cfg.Store.TLSCA != "/etc/t/ca.pem" {
		t.Errorf("store = %+v", cfg.Store)
	}
	if cfg, err := Parse("t.yaml", []byte("upstreams: {a: {command: x}}\nstore: {key: \"${K}\"}\n"), vars); err != nil || cfg.Store.Key == "" {
		t.Errorf("a key for the file store: %v", err)
	}
	for src, want := range map[string]string{
		"store: redis://h:6379/0":                                   "store.key: required with a Redis store",
		"store: {url: redis://h:6379/0, key: short}":                "use at least 16, e.g. export TOOLFOLD_STORE_KEY=$(openssl rand -hex 32)",
		"store: {url: redis://h:1/0, key: \"${K}\", tls_ca: a.pem}": "store.tls_ca: needs a rediss:// url",
		"store: {url: redis://h:1/0, key: \"${K}\", pass: x}":       `store.pass: unknown key "pass"`,
	} {
		_, err := Parse("t.yaml", []byte("upstreams: {a: {command: x}}\n"+src+"\n"), vars)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", src, err, want)
		}
	}
}
