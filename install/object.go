package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
)

// object is a JSON object whose keys keep their order, and whose values
// are kept as they are, so that rewriting a client's file changes only
// what install means to change.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func newObject() *object { return &object{vals: map[string]json.RawMessage{}} }

// parseObject reads a JSON object. Duplicate keys keep the last value, as
// JSON.parse does.
func parseObject(data []byte) (*object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	o := newObject()
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected text after the JSON object")
	}
	return o, nil
}

func (o *object) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

// set replaces key's value in place, or adds key at the end.
func (o *object) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *object) remove(key string) {
	if _, ok := o.vals[key]; ok {
		delete(o.vals, key)
		o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == key })
	}
}

// sub reads key's value as an object; a missing or null key is an empty one.
func (o *object) sub(key string) (*object, error) {
	v, ok := o.get(key)
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return newObject(), nil
	}
	s, err := parseObject(v)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", key, err)
	}
	return s, nil
}

// setSub stores s as key's value.
func (o *object) setSub(key string, s *object) {
	o.set(key, s.compact())
}

func (o *object) compact() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		_ = json.Compact(&b, o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// indented is o as a file: two-space indentation and a final newline.
func (o *object) indented() []byte {
	var b bytes.Buffer
	_ = json.Indent(&b, o.compact(), "", "  ")
	b.WriteByte('\n')
	return b.Bytes()
}

// sameJSON reports whether a and b are the same JSON, whatever their spacing.
func sameJSON(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}
