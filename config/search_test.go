package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestSearchSection(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "proxy.yaml")
	base := "upstreams:\n  a: {command: x}\n"
	tests := []struct {
		name, yaml, usage string
		pairs             int
		err               string
	}{
		{"default", base, filepath.Join(dir, ".toolfold", "usage.json"), 0, ""},
		{"off", base + "search:\n  learn: false\n  usage_file: u.json\n", "", 0, ""},
		{"file", base + "search:\n  usage_file: state/u.json\n  max_pairs: 500\n", filepath.Join(dir, "state", "u.json"), 500, ""},
		{"absolute", base + "search:\n  usage_file: /var/lib/tf/u.json\n", "/var/lib/tf/u.json", 0, ""},
		{"bad learn", base + "search:\n  learn: maybe\n", "", 0, "search.learn: must be true or false"},
		{"bad pairs", base + "search:\n  max_pairs: -3\n", "", 0, "search.max_pairs: must be a whole number"},
		{"typo", base + "search:\n  lern: false\n", "", 0, `unknown key "lern"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(file, []byte(tt.yaml), nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.UsageFile(); got != tt.usage {
				t.Errorf("UsageFile = %q, want %q", got, tt.usage)
			}
			if cfg.Search.MaxPairs != tt.pairs {
				t.Errorf("MaxPairs = %d, want %d", cfg.Search.MaxPairs, tt.pairs)
			}
		})
	}
	cfg, err := Parse("", []byte(base), nil)
	if err != nil || cfg.UsageFile() != "" {
		t.Errorf("no file: UsageFile %q, err %v; want none", cfg.UsageFile(), err)
	}
}
