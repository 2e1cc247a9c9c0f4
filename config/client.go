package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// A client's file is read as that client reads it: keys toolfold does not
// use are warnings, not errors, so a file that works in Claude Desktop,
// Claude Code, Cursor or VS Code works here unchanged. proxy.yaml's own
// top-level keys (policy, audit, sandbox, …) beside the servers are read
// as in proxy.yaml: that is how the file `toolfold install` writes carries
// its approval rules and audit log.
//
//	{"mcpServers": {"name": {"command": …, "args": […], "env": {…}}}}     Claude Desktop, Claude Code, Cursor
//	{"servers": {"name": {"type": "stdio", "command": …}}, "inputs": […]}  VS Code (.vscode/mcp.json)
//	mcpServers: [{name: …, command: …}]                                    Continue (YAML, a list)

// clientEntry is one server of a client's file.
type clientEntry struct {
	name     string
	key, val *yaml.Node
}

// client decodes a client's file, whose servers are under mapKey.
func (d *decoder) client(root *yaml.Node, mapKey string, cfg *Config, x *expander) {
	cfg.Format = mapKey
	src := &upstreamSource{client: true, baseDir: x.workspace, x: x}
	var servers field
	var ignored []string
	var firstIgnored *yaml.Node
	var later settingChecks
	for _, f := range d.fields(root, "") {
		switch {
		case f.name == mapKey:
			servers = f
		case mapKey == "servers" && f.name == "inputs": // read by ${input:…}, which is reported where used
		case d.setting(f, cfg, x, &later):
		default:
			ignored = append(ignored, strconv.Quote(f.name))
			if firstIgnored == nil {
				firstIgnored = f.key
			}
		}
	}
	if len(ignored) > 0 {
		if len(ignored) > 8 {
			ignored = append(ignored[:8], fmt.Sprintf("and %d more", len(ignored)-8))
		}
		d.warnf(firstIgnored, "", "ignored top-level keys %s: toolfold reads only %q and proxy.yaml's keys (policy, audit, …)", strings.Join(ignored, ", "), mapKey)
	}
	names := map[string]*yaml.Node{}
	for _, en := range d.clientEntries(servers, mapKey) {
		path := join(mapKey, en.name)
		name := en.name
		if !validName(name) {
			if name = normalizeName(name); name == "" {
				d.errorf(en.key, path, "server name %q has no letters or digits toolfold can use: rename it", en.name)
				continue
			}
			d.warnf(en.key, path, "server name %q is used as %q (names hold only letters, digits, '_' and '-')", en.name, name)
		}
		if prev := names[name]; prev != nil {
			d.errorf(en.key, path, "server name %q becomes %q, which the server at line %d already uses: rename one of them", en.name, name, prev.Line)
			continue
		}
		names[name] = en.key
		cfg.Upstreams = append(cfg.Upstreams, d.upstream(src, name, en.key, en.val, path))
	}
	d.checkSettings(later, cfg)
	d.checkExpose(root, &cfg.Expose, cfg)
}

// clientEntries lists the servers under mapKey: a map from name to
// settings, or (Continue) a list of settings with a "name".
func (d *decoder) clientEntries(servers field, mapKey string) []clientEntry {
	n := servers.val
	if isNull(n) || (n.Kind != yaml.ScalarNode && len(n.Content) == 0) {
		d.errorf(servers.key, mapKey, `no servers: add one, like "name": {"command": "npx", "args": ["-y", "some-mcp-server"]}`)
		return nil
	}
	var out []clientEntry
	switch n.Kind {
	case yaml.MappingNode:
		for _, f := range d.fields(n, mapKey) {
			out = append(out, clientEntry{f.name, f.key, f.val})
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if en, ok := d.namedEntry(resolve(item), fmt.Sprintf("%s[%d]", mapKey, i)); ok {
				out = append(out, en)
			}
		}
	default:
		d.errorf(n, mapKey, "must be a map from a server name to its settings")
	}
	return out
}

// namedEntry splits a list item {name: x, command: …} into its name and
// the remaining settings.
func (d *decoder) namedEntry(item *yaml.Node, path string) (clientEntry, bool) {
	if item.Kind != yaml.MappingNode {
		d.errorf(item, path, "must be a map with a name and settings")
		return clientEntry{}, false
	}
	rest := *item
	rest.Content = nil
	var en clientEntry
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.Value == "name" && en.key == nil {
			en.key = k
			en.name, _ = d.str(resolve(v), join(path, "name"))
			continue
		}
		rest.Content = append(rest.Content, k, v)
	}
	if en.key == nil {
		d.errorf(item, path, "needs a name")
		return clientEntry{}, false
	}
	en.val = &rest
	return en, true
}

// normalizeName turns a client's server name into an upstream name: runs
// of characters other than [A-Za-z0-9_-] become one '-', and '-' is
// trimmed from the ends. "My Server (v2)" → "My-Server-v2".
func normalizeName(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r < 128 && validName(string(r)) {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-")
}

// workspaceDir is what VS Code and Cursor call ${workspaceFolder} for a
// file in dir: the project that holds .vscode/ or .cursor/, else dir. It is
// also where servers of a client's file start (their default cwd).
func workspaceDir(dir string) string {
	switch filepath.Base(dir) {
	case ".vscode", ".cursor":
		return filepath.Dir(dir)
	}
	return dir
}
