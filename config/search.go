package config

import (
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Search is the "search:" section: whether search_tools learns from use.
//
//	search:
//	  learn: true                       # default; false switches learning off
//	  usage_file: .toolfold/usage.json  # default, beside this file
//	  max_pairs: 20000                  # bound on what is kept
//
// The zero value is the default: learning on, persisted beside the config.
type Search struct {
	// NoLearn is "learn: false": search_tools does not learn from use.
	// Learning makes a tool that a script calls after a search rank higher
	// for similar queries later.
	NoLearn bool
	// UsageFile is usage_file made absolute, "" when the file does not say
	// (see Config.UsageFile for the path in effect).
	UsageFile string
	// MaxPairs bounds the (query word, tool) pairs kept; 0 means the
	// index's default.
	MaxPairs int
}

// DefaultUsageFile is Search.UsageFile relative to the config's directory.
const DefaultUsageFile = ".toolfold/usage.json"

var searchKeys = []string{"learn", "usage_file", "max_pairs"}

// search decodes the "search:" section into s.
func (d *decoder) search(n *yaml.Node, s *Search, dir string, x *expander) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "search", "a map (learn, usage_file, max_pairs)")
	for _, f := range fs {
		p := join("search", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "learn":
			if b, ok := d.boolean(f.val, p); ok {
				s.NoLearn = !b
			}
		case "usage_file":
			if v, ok := d.path(f.val, p, dir, x, "must not be empty; leave it out for the default "+DefaultUsageFile); ok {
				s.UsageFile = v
			}
		case "max_pairs":
			n, err := strconv.Atoi(strings.TrimSpace(f.val.Value))
			if f.val.Kind != yaml.ScalarNode || err != nil || n < 1 || n > 10_000_000 {
				d.errorf(f.val, p, "must be a whole number from 1 to 10000000")
				continue
			}
			s.MaxPairs = n
		default:
			d.errorf(f.key, p, "%s", unknownKey(f.name, searchKeys))
		}
	}
}

// UsageFile is where search learning persists: search.usage_file, else
// .toolfold/usage.json in the config's directory; "" when learning is off
// or the config was not read from a file (then learning lasts the process).
func (c *Config) UsageFile() string {
	switch {
	case c.Search.NoLearn:
		return ""
	case c.Search.UsageFile != "":
		return c.Search.UsageFile
	case c.File != "":
		return filepath.Join(c.Dir, filepath.FromSlash(DefaultUsageFile))
	}
	return ""
}
