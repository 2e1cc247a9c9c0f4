// Package coerce adapts a script's tool arguments to the tool's input
// schema where the script's language could not say what it meant.
package coerce

import (
	"bytes"
	"encoding/json"
)

// Args adapts a script's arguments to the tool's input schema where
// the script could not say what it meant: Lua has one table type, so an
// empty table arrives as {} even where the tool wants an empty array. Each
// {} whose schema says array (and not object) becomes []. Anything else is
// left as it is; validation stays the upstream's job.
func Args(args json.RawMessage, schema map[string]any) json.RawMessage {
	if schema == nil || !bytes.Contains(args, []byte("{}")) {
		return args
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber() // keep numbers exactly as the script sent them
	var v any
	if err := dec.Decode(&v); err != nil {
		return args
	}
	v, changed := coerce(v, schema, 0)
	if !changed {
		return args
	}
	out, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return out
}

// maxSchemaDepth bounds the walk; tool schemas are shallow, and hostile
// ones must not make it expensive.
const maxSchemaDepth = 32

func coerce(v any, schema map[string]any, depth int) (any, bool) {
	if depth > maxSchemaDepth || schema == nil {
		return v, false
	}
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 && wantsArray(schema) {
			return []any{}, true
		}
		props, _ := schema["properties"].(map[string]any)
		extra, _ := schema["additionalProperties"].(map[string]any)
		changed := false
		for k, val := range v {
			sub, _ := props[k].(map[string]any)
			if sub == nil {
				sub = extra
			}
			if nv, ok := coerce(val, sub, depth+1); ok {
				v[k], changed = nv, true
			}
		}
		return v, changed
	case []any:
		items, _ := schema["items"].(map[string]any)
		changed := false
		for i, val := range v {
			if nv, ok := coerce(val, items, depth+1); ok {
				v[i], changed = nv, true
			}
		}
		return v, changed
	}
	return v, false
}

// wantsArray reports a schema whose type is array and not also object.
func wantsArray(schema map[string]any) bool {
	switch t := schema["type"].(type) {
	case string:
		return t == "array"
	case []any:
		arr, obj := false, false
		for _, x := range t {
			arr = arr || x == "array"
			obj = obj || x == "object"
		}
		return arr && !obj
	}
	return false
}
