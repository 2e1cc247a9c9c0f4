package index

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/toolfold/toolfold/sandbox"
)

// Shapes holds the result shapes observed in this deployment, for tools
// that declare no outputSchema: field names and JSON types, merged over
// the results seen, never values. Full detail shows them marked
// "observed". Safe for concurrent use; bounded in tools, fields and depth.
type Shapes struct {
	mu    sync.RWMutex
	tools map[string]*shape // qualified name → shape
	order []string          // insertion order, the oldest dropped when full
}

// Bounds of what Shapes keeps.
const (
	shapeTools  = 4096    // tools remembered
	shapeFields = 24      // fields kept per object
	shapeDepth  = 4       // nesting levels kept
	shapeBytes  = 4 << 20 // a result larger than this is not observed
	shapeItems  = 16      // array elements looked at
)

// shape is the merged type of the values seen at one place of a result.
type shape struct {
	types  []string          // "string", "number", "boolean", "null", "object", "array", sorted
	fields map[string]*shape // of objects
	keys   []string          // field order as first seen
	more   bool              // fields were dropped at the bound
	elem   *shape            // of arrays' elements
}

// NewShapes returns an empty store.
func NewShapes() *Shapes { return &Shapes{tools: make(map[string]*shape)} }

// Observe merges the shape of one result (a script's value of a tool call:
// JSON) into what is known of the tool qname. Invalid or huge results are
// ignored.
func (s *Shapes) Observe(qname string, result json.RawMessage) {
	if s == nil || len(result) == 0 || len(result) > shapeBytes {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(result))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sh := s.tools[qname]
	if sh == nil {
		if len(s.order) >= shapeTools {
			delete(s.tools, s.order[0])
			s.order = s.order[1:]
		}
		sh = &shape{}
		s.tools[qname] = sh
		s.order = append(s.order, qname)
	}
	sh.merge(v, 0)
}

// merge adds the shape of v.
func (sh *shape) merge(v any, depth int) {
	var typ string
	switch x := v.(type) {
	case nil:
		typ = "null"
	case bool:
		typ = "boolean"
	case json.Number, float64:
		typ = "number"
	case string:
		typ = "string"
	case []any:
		typ = "array"
		if depth < shapeDepth {
			for _, e := range x[:min(len(x), shapeItems)] {
				if sh.elem == nil {
					sh.elem = &shape{}
				}
				sh.elem.merge(e, depth+1)
			}
		}
	case map[string]any:
		typ = "object"
		if depth < shapeDepth {
			sh.mergeFields(x, depth)
		}
	default:
		return
	}
	if !slices.Contains(sh.types, typ) {
		sh.types = append(sh.types, typ)
		slices.Sort(sh.types)
	}
}

func (sh *shape) mergeFields(x map[string]any, depth int) {
	if sh.fields == nil {
		sh.fields = make(map[string]*shape)
	}
	for _, k := range slices.Sorted(maps.Keys(x)) {
		f := sh.fields[k]
		if f == nil {
			if len(sh.keys) >= shapeFields || len(k) > 64 {
				sh.more = true
				continue
			}
			f = &shape{}
			sh.fields[k] = f
			sh.keys = append(sh.keys, k)
		}
		f.merge(x[k], depth+1)
	}
}

// Shape is the observed result shape of a tool, written like the type of
// a parameter ("{items: {id: number, name: string}[], total: number}"),
// or "" when none was observed.
func (s *Shapes) Shape(qname string) string {
	if s == nil {
		return ""
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	sh := s.tools[qname]
	if sh == nil {
		return ""
	}
	var b strings.Builder
	sh.write(&b)
	return b.String()
}

func (sh *shape) write(b *strings.Builder) {
	for i, t := range sh.types {
		if i > 0 {
			b.WriteByte('|')
		}
		switch {
		case t == "object" && len(sh.keys) > 0:
			b.WriteByte('{')
			for j, k := range sh.keys {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(luaKeyless(k) + ": ")
				sh.fields[k].write(b)
			}
			if sh.more {
				b.WriteString(", ...")
			}
			b.WriteByte('}')
		case t == "array" && sh.elem != nil && len(sh.elem.types) > 0:
			if len(sh.elem.types) > 1 {
				b.WriteByte('(')
				sh.elem.write(b)
				b.WriteByte(')')
			} else {
				sh.elem.write(b)
			}
			b.WriteString("[]")
		default:
			b.WriteString(t)
		}
	}
}

// luaKeyless writes a field name bare when it is an identifier, quoted
// otherwise, as parameter types do.
func luaKeyless(k string) string {
	if ScriptIdent(k) == k && k != "" {
		return k
	}
	return sandbox.JSONString(k)
}
