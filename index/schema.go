package index

import (
	"slices"
	"strings"

	"github.com/toolfold/toolfold/sandbox"
)

// param is one property of an object schema.
type param struct {
	name     string
	schema   map[string]any // with a top-level $ref resolved
	required bool
}

// schemaDoc resolves local $refs ("#/$defs/x", "#/definitions/x") against
// the root of a schema.
type schemaDoc struct{ root map[string]any }

// deref follows $ref chains within the document; an unresolvable ref yields
// the schema as it is.
func (d schemaDoc) deref(s map[string]any) map[string]any {
	for range 8 {
		ref, ok := s["$ref"].(string)
		if !ok || !strings.HasPrefix(ref, "#") {
			return s
		}
		var cur any = d.root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#"), "/") {
			if part == "" {
				continue
			}
			part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
			m, ok := cur.(map[string]any)
			if !ok {
				return s
			}
			cur = m[part]
		}
		next, ok := cur.(map[string]any)
		if !ok {
			return s
		}
		s = next
	}
	return s
}

// params lists an object schema's properties: required ones first in the
// order the schema lists them, then the optional ones by name.
func (d schemaDoc) params(s map[string]any) []param {
	s = d.deref(s)
	props, _ := s["properties"].(map[string]any)
	if len(props) == 0 {
		return nil
	}
	var out []param
	seen := make(map[string]bool)
	for _, r := range asSlice(s["required"]) {
		name, _ := r.(string)
		if p, ok := props[name].(map[string]any); ok && !seen[name] {
			seen[name] = true
			out = append(out, param{name: name, schema: d.deref(p), required: true})
		}
	}
	var opt []string
	for name := range props {
		if !seen[name] {
			opt = append(opt, name)
		}
	}
	slices.Sort(opt)
	for _, name := range opt {
		p, _ := props[name].(map[string]any)
		out = append(out, param{name: name, schema: d.deref(p)})
	}
	return out
}

// typeOpts bound how much of a type typeString spells out.
type typeOpts struct {
	depth    int // nesting of object shapes spelled out
	maxEnum  int // enum values listed before "|..."
	maxBytes int // longer shapes collapse to "object"
}

// typeString renders a schema as a compact type: string, number, "a"|"b",
// string[], {id: string, tags?: string[]}.
func (d schemaDoc) typeString(s map[string]any, o typeOpts) string {
	s = d.deref(s)
	if enum := asSlice(s["enum"]); len(enum) > 0 {
		return enumString(enum, o.maxEnum)
	}
	if c, ok := s["const"]; ok {
		return sandbox.JSONLiteral(c)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if alts := asSlice(s[kw]); len(alts) > 0 {
			return d.unionString(alts, o)
		}
	}
	if all := asSlice(s["allOf"]); len(all) == 1 {
		if m, ok := all[0].(map[string]any); ok {
			return d.typeString(m, o)
		}
	}
	switch t := s["type"].(type) {
	case string:
		return d.namedType(t, s, o)
	case []any:
		var parts []string
		for _, x := range t {
			if name, ok := x.(string); ok {
				parts = appendUnique(parts, d.namedType(name, s, o))
			}
		}
		return strings.Join(parts, "|")
	}
	switch {
	case s["properties"] != nil:
		return d.namedType("object", s, o)
	case s["items"] != nil:
		return d.namedType("array", s, o)
	}
	return "any"
}

func (d schemaDoc) unionString(alts []any, o typeOpts) string {
	var parts []string
	for _, a := range alts {
		if m, ok := a.(map[string]any); ok {
			parts = appendUnique(parts, d.typeString(m, o))
		}
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, "|")
}

func (d schemaDoc) namedType(t string, s map[string]any, o typeOpts) string {
	switch t {
	case "array":
		items, _ := s["items"].(map[string]any)
		if items == nil {
			return "array"
		}
		it := d.typeString(items, o)
		if strings.Contains(it, "|") {
			it = "(" + it + ")"
		}
		return it + "[]"
	case "object":
		return d.objectShape(s, o)
	}
	return shownName(t)
}

// objectShape spells out an object's properties while depth and size allow.
func (d schemaDoc) objectShape(s map[string]any, o typeOpts) string {
	ps := d.params(s)
	if len(ps) == 0 || o.depth <= 0 {
		return "object"
	}
	inner := o
	inner.depth--
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(shownName(p.name))
		if !p.required {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		b.WriteString(d.typeString(p.schema, inner))
		if o.maxBytes > 0 && b.Len() > o.maxBytes {
			return "object"
		}
	}
	b.WriteByte('}')
	return b.String()
}

func enumString(enum []any, maxN int) string {
	var parts []string
	for i, v := range enum {
		if maxN > 0 && i == maxN {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, sandbox.JSONLiteral(v))
	}
	return strings.Join(parts, "|")
}

func appendUnique(parts []string, s string) []string {
	if slices.Contains(parts, s) {
		return parts
	}
	return append(parts, s)
}

func asSlice(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []string:
		out := make([]any, len(x))
		for i, s := range x {
			out[i] = s
		}
		return out
	}
	return nil
}

func str(s map[string]any, key string) string {
	v, _ := s[key].(string)
	return v
}

// eachText calls fn with the text of a schema for the index: property
// names (fParamName); titles, descriptions and string enum values
// (fParamDesc); nested up to a few levels.
func (d schemaDoc) eachText(s map[string]any, depth int, fn func(field int, text string)) {
	if depth > 3 || s == nil {
		return
	}
	s = d.deref(s)
	props, _ := s["properties"].(map[string]any)
	for name, v := range props {
		p, ok := v.(map[string]any)
		if !ok {
			continue
		}
		p = d.deref(p)
		fn(fParamName, name)
		fn(fParamDesc, str(p, "title"))
		fn(fParamDesc, str(p, "description"))
		for _, e := range asSlice(p["enum"]) {
			if v, ok := e.(string); ok {
				fn(fParamDesc, v)
			}
		}
		d.eachText(p, depth+1, fn)
	}
	if items, ok := s["items"].(map[string]any); ok {
		d.eachText(items, depth+1, fn)
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		for _, a := range asSlice(s[kw]) {
			if m, ok := a.(map[string]any); ok {
				d.eachText(m, depth+1, fn)
			}
		}
	}
}
