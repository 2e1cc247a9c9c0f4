package config

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Skills is the "skills:" section: where saved skills live and who may
// save them.
//
//	skills:
//	  dir: .toolfold/skills   # default, beside this file
//	  save: true              # HTTP sessions may save too (default: stdio only); false: no session
//
// Every session of the proxy shares the skills in Dir, so over HTTP (where
// any client that reaches the listener opens a session) saving is off
// unless the file says save: true: otherwise one client could plant code
// that another client's script then runs.
type Skills struct {
	// Dir is dir made absolute, "" when the file does not say (see
	// Config.SkillsDir for the directory in effect). It must be toolfold's
	// own and writable by no one else (checked where it is used).
	Dir string
	// SaveHTTP is "save: true": sessions over HTTP may save skills too.
	SaveHTTP bool
	// NoSave is "save: false": no session saves skills (toolfold skills
	// add still does).
	NoSave bool
}

// DefaultSkillsDir is Skills.Dir relative to the config's directory.
const DefaultSkillsDir = ".toolfold/skills"

// SkillsUpstream is the qualifier of saved skills (skills.NAME in
// search_tools and scripts): no upstream may take that name.
const SkillsUpstream = "skills"

var skillsKeys = []string{"dir", "save"}

// SkillsDir is the skills directory in effect: skills.dir, else
// DefaultSkillsDir in the config's directory.
func (c *Config) SkillsDir() string {
	if c.Skills.Dir != "" {
		return c.Skills.Dir
	}
	return filepath.Join(c.Dir, filepath.FromSlash(DefaultSkillsDir))
}

// MaySave reports whether a session may save skills: http is whether it
// came over HTTP.
func (s Skills) MaySave(http bool) bool {
	return !s.NoSave && (!http || s.SaveHTTP)
}

// skills decodes the "skills:" section into s.
func (d *decoder) skills(n *yaml.Node, s *Skills, dir string, x *expander) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "skills", "a map (dir, save)")
	for _, f := range fs {
		p := join("skills", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "dir":
			if v, ok := d.path(f.val, p, dir, x, "must be a directory; leave it out for the default "+DefaultSkillsDir); ok {
				s.Dir = v
			}
		case "save":
			if b, ok := d.boolean(f.val, p); ok {
				s.SaveHTTP, s.NoSave = b, !b
			}
		default:
			d.errorf(f.key, p, "%s", unknownKey(f.name, skillsKeys))
		}
	}
}

// reservedUpstream says why name cannot name an upstream because toolfold
// uses it, or "".
func reservedUpstream(name string) string {
	if name == SkillsUpstream {
		return fmt.Sprintf(`the name %q is toolfold's: saved skills are qualified %s.NAME in search_tools and scripts, `+
			`so this server's tools would collide with them; rename the server (for example %q)`,
			name, SkillsUpstream, name+"_server")
	}
	return ""
}

// YAMLToJSON converts one YAML document (a SKILL.md's front matter, say)
// to JSON: mappings with scalar keys become objects, sequences arrays,
// scalars by their YAML type. A problem is an *Error with the line.
// Aliases are followed, within a budget on the nodes visited.
func YAMLToJSON(data []byte) (json.RawMessage, error) {
	root, perr := parseYAML(data)
	if perr != nil {
		return nil, perr
	}
	if root == nil {
		return json.RawMessage("null"), nil
	}
	budget := maxNodes
	v, err := yamlValue(root, &budget)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

func yamlValue(n *yaml.Node, budget *int) (any, error) {
	n = resolve(n)
	if *budget--; *budget < 0 {
		return nil, &Error{Line: n.Line, Col: n.Column, Msg: "the document expands to too many values (aliases?)"}
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := resolve(n.Content[i])
			if k.Kind != yaml.ScalarNode {
				return nil, &Error{Line: k.Line, Col: k.Column, Msg: "a key must be a plain value"}
			}
			if _, dup := m[k.Value]; dup {
				return nil, &Error{Line: k.Line, Col: k.Column, Msg: fmt.Sprintf("duplicate key %q", k.Value)}
			}
			v, err := yamlValue(n.Content[i+1], budget)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlValue(c, budget)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		return yamlScalar(n)
	}
	return nil, &Error{Line: n.Line, Col: n.Column, Msg: "unsupported YAML node"}
}

func yamlScalar(n *yaml.Node) (any, error) {
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		if b, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			return b, nil
		}
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			if n.Tag == "!!int" {
				if i, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
					return i, nil
				}
			}
			return f, nil
		}
		return nil, &Error{Line: n.Line, Col: n.Column, Msg: fmt.Sprintf("%q is not a number JSON can hold", n.Value)}
	}
	return n.Value, nil
}
