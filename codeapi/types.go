package codeapi

import (
	"encoding/json"
	"slices"
	"strings"
)

// typeSyntax is how one language writes the types of JSON values.
type typeSyntax struct {
	any, str, integer, number, boolean, null string
	object                                   string // an object of unknown fields
	array                                    func(elem string) string
	union                                    func(alts []string) string
	literal                                  func(v any) string
	// fields writes an object type with known fields; nil: object.
	fields func(fs []field) string
}

// field is one property of an object type.
type field struct {
	name, typ string
	required  bool
}

// maxTypeDepth bounds nested object types written inline.
const maxTypeDepth = 2

// maxEnum bounds the literals of an enum written as a type.
const maxEnum = 12

// typeOf writes schema s (decoded JSON Schema) as a type of x. root
// resolves local $refs.
func typeOf(x *typeSyntax, root, s map[string]any, depth int) string {
	if s == nil {
		return x.any
	}
	if ref, _ := s["$ref"].(string); ref != "" {
		if r := deref(root, ref); r != nil && depth < maxTypeDepth+2 {
			return typeOf(x, root, r, depth+1)
		}
		return x.any
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 && len(enum) <= maxEnum && x.literal != nil {
		alts := make([]string, len(enum))
		for i, v := range enum {
			alts[i] = x.literal(v)
		}
		return x.union(alts)
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			var ts []string
			for _, a := range alts {
				m, _ := a.(map[string]any)
				if t := typeOf(x, root, m, depth+1); !slices.Contains(ts, t) {
					ts = append(ts, t)
				}
			}
			return x.union(ts)
		}
	}
	switch t := s["type"].(type) {
	case string:
		return namedType(x, root, s, t, depth)
	case []any:
		var ts []string
		for _, e := range t {
			if n, ok := e.(string); ok {
				ts = append(ts, namedType(x, root, s, n, depth))
			}
		}
		if len(ts) > 0 {
			return x.union(ts)
		}
	}
	if _, ok := s["properties"]; ok {
		return namedType(x, root, s, "object", depth)
	}
	return x.any
}

// namedType writes the JSON Schema type t of s.
func namedType(x *typeSyntax, root, s map[string]any, t string, depth int) string {
	switch t {
	case "string":
		return x.str
	case "integer":
		return x.integer
	case "number":
		return x.number
	case "boolean":
		return x.boolean
	case "null":
		return x.null
	case "array":
		items, _ := s["items"].(map[string]any)
		return x.array(typeOf(x, root, items, depth+1))
	case "object":
		if x.fields == nil || depth >= maxTypeDepth {
			return x.object
		}
		fs := fields(x, root, s, depth+1)
		if len(fs) == 0 {
			return x.object
		}
		return x.fields(fs)
	}
	return x.any
}

// fields lists the properties of object schema s in their order in the
// schema's JSON (Go maps lose it: sorted by name, required first).
func fields(x *typeSyntax, root, s map[string]any, depth int) []field {
	props, _ := s["properties"].(map[string]any)
	req := required(s)
	var fs []field
	for _, name := range sortedKeys(props) {
		p, _ := props[name].(map[string]any)
		fs = append(fs, field{name: name, typ: typeOf(x, root, p, depth), required: req[name]})
	}
	slices.SortStableFunc(fs, func(a, b field) int {
		switch {
		case a.required == b.required:
			return 0
		case a.required:
			return -1
		}
		return 1
	})
	return fs
}

// required is the set of s's required properties.
func required(s map[string]any) map[string]bool {
	out := map[string]bool{}
	list, _ := s["required"].([]any)
	for _, r := range list {
		if n, ok := r.(string); ok {
			out[n] = true
		}
	}
	return out
}

// deref resolves a local reference "#/$defs/X" or "#/definitions/X".
func deref(root map[string]any, ref string) map[string]any {
	if !strings.HasPrefix(ref, "#/") {
		return nil
	}
	var cur any = root
	for _, part := range strings.Split(ref[2:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")]
	}
	m, _ := cur.(map[string]any)
	return m
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jsonLiteral is v as JSON: a JavaScript, TypeScript and (for strings,
// numbers, booleans) Python literal.
func jsonLiteral(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// joinUnion joins alternatives with " | ".
func joinUnion(alts []string) string { return strings.Join(alts, " | ") }
