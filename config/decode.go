package config

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// decoder walks a yaml.Node tree, collecting every problem with its
// position instead of stopping at the first.
type decoder struct {
	file   string // as the caller gave it, for messages
	errs   []*Error
	warns  []*Error
	budget int // nodes left to visit; guards against alias expansion blowups
	// merging holds the mappings whose "<<" merges are being expanded, to
	// stop a mapping that merges itself.
	merging map[*yaml.Node]bool
}

// maxNodes bounds the nodes one decode visits. Aliases can make a small
// document expand to billions of nodes; no real config comes near this.
const maxNodes = 1 << 20

func (d *decoder) errorf(n *yaml.Node, path, format string, args ...any) {
	d.errs = append(d.errs, d.at(n, path, fmt.Sprintf(format, args...)))
}

func (d *decoder) warnf(n *yaml.Node, path, format string, args ...any) {
	d.warns = append(d.warns, d.at(n, path, fmt.Sprintf(format, args...)))
}

func (d *decoder) at(n *yaml.Node, path, msg string) *Error {
	e := &Error{File: d.file, Path: path, Msg: msg}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}

// field is one key/value pair of a mapping.
type field struct {
	name     string
	key, val *yaml.Node
}

// fields returns the pairs of mapping n in order, resolving aliases and
// "<<" merge keys (explicit keys win; among merged sources the first wins,
// as in YAML). A duplicate key is an error; so is a key that is not a string.
func (d *decoder) fields(n *yaml.Node, path string) []field {
	explicit := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !d.spend() {
			return nil
		}
		switch {
		case isMergeKey(k):
		case k.Kind != yaml.ScalarNode || k.Tag == "!!null":
			d.errorf(k, path, "keys must be strings")
		case explicit[k.Value] != nil:
			d.errorf(k, join(path, k.Value), "duplicate key %q (first at line %d)", k.Value, explicit[k.Value].Line)
		default:
			explicit[k.Value] = k
		}
	}
	seen := map[string]bool{}
	var out []field
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		switch {
		case isMergeKey(k):
			out = append(out, d.merged(k, v, path, explicit, seen)...)
		case k.Kind == yaml.ScalarNode && explicit[k.Value] == k:
			out = append(out, field{k.Value, k, v})
		}
	}
	return out
}

// merged returns the fields a "<<" key brings in that are not already set.
func (d *decoder) merged(k, v *yaml.Node, path string, explicit map[string]*yaml.Node, seen map[string]bool) []field {
	sources := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		sources = v.Content
	}
	var out []field
	for _, src := range sources {
		src = resolve(src)
		switch {
		case src.Kind != yaml.MappingNode:
			d.errorf(k, path, "<< must merge a mapping or a list of mappings")
			continue
		case d.merging[src]:
			d.errorf(k, path, "<< merges a mapping into itself")
			continue
		}
		if d.merging == nil {
			d.merging = map[*yaml.Node]bool{}
		}
		d.merging[src] = true
		fs := d.fields(src, path)
		delete(d.merging, src)
		for _, f := range fs {
			if explicit[f.name] == nil && !seen[f.name] {
				seen[f.name] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Tag == "!!merge"
}

// spend counts one node against the budget, reporting once when it runs out.
func (d *decoder) spend() bool {
	d.budget--
	if d.budget == 0 {
		d.errs = append(d.errs, &Error{File: d.file, Msg: "document too large once aliases are expanded"})
	}
	return d.budget > 0
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// isNull reports an explicit null ("key:" with nothing, "~", "null"), which
// counts as absent.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// mapping checks that n is a mapping and returns its fields.
func (d *decoder) mapping(n *yaml.Node, path, what string) ([]field, bool) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be %s", what)
		return nil, false
	}
	return d.fields(n, path), true
}

// str reads a scalar as text. Numbers and booleans are taken as written
// ("8080", "true"), which is what a command line wants.
func (d *decoder) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, path, "must be a string")
		return "", false
	}
	return n.Value, true
}

// strList reads a sequence of scalars.
func (d *decoder) strList(n *yaml.Node, path string) ([]*yaml.Node, bool) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, `must be a list of strings, like ["-y", "some-package"]`)
		return nil, false
	}
	var out []*yaml.Node
	ok := true
	for i, item := range n.Content {
		item = resolve(item)
		if !d.spend() {
			return nil, false
		}
		if _, good := d.str(item, fmt.Sprintf("%s[%d]", path, i)); !good {
			ok = false
			continue
		}
		out = append(out, item)
	}
	return out, ok
}

// strMap reads a mapping of string values; keys stay in file order.
func (d *decoder) strMap(n *yaml.Node, path string) ([]field, bool) {
	fs, ok := d.mapping(n, path, "a map of names to strings")
	if !ok {
		return nil, false
	}
	var out []field
	for _, f := range fs {
		if f.name == "" {
			d.errorf(f.key, path, "empty name")
			ok = false
			continue
		}
		if _, good := d.str(f.val, join(path, f.name)); !good {
			ok = false
			continue
		}
		out = append(out, f)
	}
	return out, ok
}

func (d *decoder) boolean(n *yaml.Node, path string) (bool, bool) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		if b, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			return b, true
		}
	}
	d.errorf(n, path, "must be true or false")
	return false, false
}

// duration reads a positive Go duration ("30s", "2m", "1h30m").
func (d *decoder) duration(n *yaml.Node, path string) (time.Duration, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, path, "must be a duration like 30s or 2m")
		return 0, false
	}
	v, err := time.ParseDuration(strings.TrimSpace(n.Value))
	if err != nil {
		d.errorf(n, path, "invalid duration %q; use Go syntax like 30s or 2m", n.Value)
		return 0, false
	}
	if v <= 0 {
		d.errorf(n, path, "must be positive, got %q", n.Value)
		return 0, false
	}
	return v, true
}

// count reads a positive integer.
func (d *decoder) count(n *yaml.Node, path string) (int, bool) {
	v, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 32)
	if n.Kind != yaml.ScalarNode || err != nil || v <= 0 {
		d.errorf(n, path, "must be a positive whole number, got %s", describe(n))
		return 0, false
	}
	return int(v), true
}

// size reads a positive byte size: a whole number of bytes, or a number
// with a unit: 64KiB, 512MiB, 1GiB (powers of 1024) or 10MB, 1.5GB
// (powers of 1000). Units are case-insensitive.
func (d *decoder) size(n *yaml.Node, path string) (int64, bool) {
	if n.Kind != yaml.ScalarNode || isNull(n) {
		d.errorf(n, path, "must be a size like 512MiB")
		return 0, false
	}
	v, err := parseSize(n.Value)
	if err != "" {
		d.errorf(n, path, "%s", err)
		return 0, false
	}
	return v, true
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// parseSize returns the bytes in s, or a message saying what is wrong.
func parseSize(s string) (int64, string) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	mult, known := sizeUnits[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !known || err != nil || strings.HasPrefix(num, ".") || strings.HasSuffix(num, ".") {
		return 0, fmt.Sprintf("invalid size %q; use bytes (65536) or a number with a unit: 64KiB, 512MiB, 1GiB, 10MB, 1.5GB", s)
	}
	total := f * mult
	switch {
	case total >= math.MaxInt64/2:
		return 0, fmt.Sprintf("size %q is too large", s)
	case total != math.Trunc(total):
		return 0, fmt.Sprintf("size %q is not a whole number of bytes", s)
	case total <= 0:
		return 0, fmt.Sprintf("must be positive, got %q", s)
	}
	return int64(total), ""
}

// describe quotes a scalar's text, or names the kind of a collection.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	}
	return strconv.Quote(n.Value)
}

// join appends a key to a dotted path. Keys that are not plain names are
// quoted: mcpServers["my server"].
func join(path, key string) string {
	if !validName(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// validName reports whether s is a usable upstream name: [A-Za-z0-9_-]+.
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')) {
			return false
		}
	}
	return s != ""
}

// path reads a file or directory name: ${VAR}s expanded, relative to dir
// (the config's), cleaned. empty is the error for a blank value.
func (d *decoder) path(n *yaml.Node, p, dir string, x *expander, empty string) (string, bool) {
	v, ok := d.str(n, p)
	if !ok {
		return "", false
	}
	v, errs := x.expand(v)
	for _, e := range errs {
		d.errorf(n, p, "%s", e)
	}
	if v = strings.TrimSpace(v); v == "" {
		d.errorf(n, p, "%s", empty)
		return "", false
	}
	if !filepath.IsAbs(v) {
		v = filepath.Join(dir, v)
	}
	return filepath.Clean(v), true
}
