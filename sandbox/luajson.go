package sandbox

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	lua "github.com/yuin/gopher-lua"
)

// JSON ↔ Lua. Objects are tables, arrays are sequences (1-based), null is
// the json.null sentinel (nil at the top level), numbers are Lua numbers.
// Lua has one table type for both, so every decoded table carries a mark,
// one shared metatable for arrays and one for objects, which json.array and
// json.object also set. Back to JSON: a table marked as an array is an
// array, the empty one too (keys other than 1..n are an error); one marked
// as an object is an object; an unmarked table is an array when its keys
// are exactly 1..n with n > 0 and an object otherwise (the empty one too).
// Objects have sorted keys; integral numbers have no ".0"; NaN, infinities,
// functions and cyclic tables are errors.

// maxJSONDepth bounds nesting both ways.
const maxJSONDepth = 200

// jsonMarks are the metatables that mark a table as a JSON array or object.
// A script can see them (getmetatable) and replace them (setmetatable);
// they only steer the encoding of its own run.
type jsonMarks struct {
	array, object *lua.LTable
}

// shape reports how t encodes: as an array of n elements or as an object.
func (m jsonMarks) shape(t *lua.LTable) (n int, isArray bool, err error) {
	n, seq, bad := seqLen(t)
	switch t.Metatable {
	case lua.LValue(m.array):
		if !seq {
			return 0, false, fmt.Errorf("cannot encode an array (from JSON or json.array) with %s; its keys must be 1..n", bad)
		}
		return n, true, nil
	case lua.LValue(m.object):
		return 0, false, nil
	}
	return n, seq && n > 0, nil
}

// jsonModule is the global `json`: encode, decode, null, array, object.
func (e *luaEnv) jsonModule() *lua.LTable {
	L := e.L
	e.marks = jsonMarks{array: L.NewTable(), object: L.NewTable()}
	e.null = L.NewUserData()
	meta := L.NewTable()
	meta.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("null"))
		return 1
	}))
	meta.RawSetString("__metatable", lua.LString("json.null"))
	L.SetMetatable(e.null, meta)
	m := L.NewTable()
	m.RawSetString("null", e.null)
	m.RawSetString("encode", L.NewFunction(func(L *lua.LState) int {
		raw, err := e.toJSON(L.CheckAny(1))
		if err != nil {
			L.RaiseError("json.encode: %v", err)
		}
		L.Push(lua.LString(raw))
		return 1
	}))
	m.RawSetString("decode", L.NewFunction(func(L *lua.LState) int {
		v, err := e.fromJSON([]byte(L.CheckString(1)))
		if err != nil {
			L.RaiseError("json.decode: %v", err)
		}
		L.Push(v)
		return 1
	}))
	// json.array(...): a new array of the arguments, nil as json.null so
	// that it has no holes.
	m.RawSetString("array", L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		t := L.CreateTable(n, 0)
		for i := 1; i <= n; i++ {
			v := L.Get(i)
			if v == lua.LNil {
				v = e.null
			}
			t.RawSetInt(i, v)
		}
		t.Metatable = e.marks.array
		L.Push(t)
		return 1
	}))
	// json.object([t]): a new object, with t's fields when given.
	m.RawSetString("object", L.NewFunction(func(L *lua.LState) int {
		t := L.NewTable()
		if src := L.OptTable(1, nil); src != nil {
			src.ForEach(func(k, v lua.LValue) { t.RawSet(k, v) })
		}
		t.Metatable = e.marks.object
		L.Push(t)
		return 1
	}))
	return m
}

// toJSON encodes a Lua value.
func (e *luaEnv) toJSON(v lua.LValue) (json.RawMessage, error) {
	enc := jsonEncoder{null: e.null, marks: e.marks, active: make(map[*lua.LTable]bool)}
	if err := enc.value(v, 0); err != nil {
		return nil, err
	}
	return enc.buf, nil
}

// toArgs encodes a tool's arguments: nil or a table with named fields.
func (e *luaEnv) toArgs(v lua.LValue, fn, example string) (json.RawMessage, error) {
	switch t := v.(type) {
	case *lua.LNilType:
		return json.RawMessage("{}"), nil
	case *lua.LTable:
		if !e.isList(t) {
			return e.toJSON(t)
		}
	}
	return nil, fmt.Errorf("%s expects a table of named arguments, like %s, got a %s", fn, example, e.argDescription(v))
}

// isList reports whether t is meant as an array: marked as one, or an
// unmarked non-empty sequence.
func (e *luaEnv) isList(t *lua.LTable) bool {
	if t.Metatable == lua.LValue(e.marks.array) {
		return true
	}
	_, isArray, _ := e.marks.shape(t)
	return isArray
}

func (e *luaEnv) argDescription(v lua.LValue) string {
	if t, ok := v.(*lua.LTable); ok && e.isList(t) {
		return "list"
	}
	return v.Type().String()
}

type jsonEncoder struct {
	null   *lua.LUserData
	marks  jsonMarks
	buf    []byte
	active map[*lua.LTable]bool // tables being encoded: seeing one again is a cycle
}

var errJSONDepth = fmt.Errorf("nested deeper than %d levels", maxJSONDepth)

func (enc *jsonEncoder) value(v lua.LValue, depth int) error {
	switch v := v.(type) {
	case *lua.LNilType:
		enc.buf = append(enc.buf, "null"...)
	case lua.LBool:
		enc.buf = strconv.AppendBool(enc.buf, bool(v))
	case lua.LNumber:
		return enc.number(float64(v))
	case lua.LString:
		enc.buf = appendJSONString(enc.buf, string(v))
	case *lua.LTable:
		if depth >= maxJSONDepth {
			return errJSONDepth
		}
		if enc.active[v] {
			return errors.New("cannot encode a table that contains itself")
		}
		enc.active[v] = true
		defer delete(enc.active, v)
		n, isArray, err := enc.marks.shape(v)
		switch {
		case err != nil:
			return err
		case isArray:
			return enc.array(v, n, depth)
		}
		return enc.object(v, depth)
	case *lua.LUserData:
		if v == enc.null {
			enc.buf = append(enc.buf, "null"...)
			return nil
		}
		return errors.New("cannot encode a userdata value")
	default:
		return fmt.Errorf("cannot encode a %s value", v.Type())
	}
	return nil
}

func (enc *jsonEncoder) number(f float64) error {
	switch {
	case math.IsNaN(f):
		return errors.New("cannot encode NaN (JSON has no NaN or infinity)")
	case math.IsInf(f, 0):
		return fmt.Errorf("cannot encode %s (JSON has no NaN or infinity)", map[bool]string{true: "inf", false: "-inf"}[f > 0])
	case f == math.Trunc(f) && math.Abs(f) < 1e21: // integral: no ".0", no exponent (as JavaScript)
		enc.buf = strconv.AppendFloat(enc.buf, f+0, 'f', -1, 64) // +0 turns -0 into 0
	default:
		enc.buf = strconv.AppendFloat(enc.buf, f, 'g', -1, 64)
	}
	return nil
}

func (enc *jsonEncoder) array(t *lua.LTable, n, depth int) error {
	enc.buf = append(enc.buf, '[')
	for i := 1; i <= n; i++ {
		if i > 1 {
			enc.buf = append(enc.buf, ',')
		}
		if err := enc.value(t.RawGetInt(i), depth+1); err != nil {
			return err
		}
	}
	enc.buf = append(enc.buf, ']')
	return nil
}

func (enc *jsonEncoder) object(t *lua.LTable, depth int) error {
	type field struct {
		key   string
		isStr bool
		val   lua.LValue
	}
	var fields []field
	t.ForEach(func(k, v lua.LValue) {
		s, isStr := k.(lua.LString)
		if !isStr {
			s = lua.LString(keyString(k))
		}
		fields = append(fields, field{string(s), isStr, v})
	})
	// Sorted keys; where t[1] and t["1"] collide, the string key wins.
	slices.SortFunc(fields, func(a, b field) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		if a.isStr == b.isStr {
			return 0
		} else if a.isStr {
			return -1
		}
		return 1
	})
	enc.buf = append(enc.buf, '{')
	for i, f := range fields {
		if i > 0 && f.key == fields[i-1].key {
			continue
		}
		if i > 0 {
			enc.buf = append(enc.buf, ',')
		}
		enc.buf = appendJSONString(enc.buf, f.key)
		enc.buf = append(enc.buf, ':')
		if err := enc.value(f.val, depth+1); err != nil {
			return err
		}
	}
	enc.buf = append(enc.buf, '}')
	return nil
}

// keyString renders a non-string table key the way tostring does, with
// integral numbers as integers.
func keyString(k lua.LValue) string {
	if n, ok := k.(lua.LNumber); ok && float64(n) == math.Trunc(float64(n)) && math.Abs(float64(n)) < 1<<53 {
		return strconv.FormatInt(int64(n), 10)
	}
	return k.String()
}

// seqLen counts t's keys and reports whether they are exactly 1..n (true
// for the empty table). When they are not, bad describes why, for errors.
func seqLen(t *lua.LTable) (n int, seq bool, bad string) {
	maxKey := 0
	t.ForEach(func(k, _ lua.LValue) {
		n++
		if bad != "" {
			return
		}
		i, ok := k.(lua.LNumber)
		if !ok || float64(i) != math.Trunc(float64(i)) || i < 1 || i > lua.LNumber(math.MaxInt32) {
			if s, isStr := k.(lua.LString); isStr {
				bad = "the key " + strconv.Quote(string(s))
			} else {
				bad = "the key " + keyString(k)
			}
			return
		}
		maxKey = max(maxKey, int(i))
	})
	if bad == "" && maxKey != n {
		bad = fmt.Sprintf("a hole (largest index %d, element count %d)", maxKey, n)
	}
	return n, bad == "", bad
}

// appendJSONString quotes s as a JSON string without HTML escaping; invalid
// UTF-8 becomes U+FFFD.
func appendJSONString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			case c < 0x20 || c == 0x7f:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				buf = append(buf, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// fromJSON decodes raw into a Lua value; a top-level null is nil.
func (e *luaEnv) fromJSON(raw []byte) (lua.LValue, error) {
	if len(raw) == 0 {
		return lua.LNil, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return lua.LNil, nil
	}
	return e.toLua(v, 0)
}

func (e *luaEnv) toLua(v any, depth int) (lua.LValue, error) {
	if depth > maxJSONDepth {
		return nil, errJSONDepth
	}
	switch v := v.(type) {
	case nil:
		return e.null, nil
	case bool:
		return lua.LBool(v), nil
	case float64:
		return lua.LNumber(v), nil
	case string:
		return lua.LString(v), nil
	case []any:
		t := e.L.CreateTable(len(v), 0)
		t.Metatable = e.marks.array
		for i, x := range v {
			lv, err := e.toLua(x, depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSetInt(i+1, lv)
		}
		return t, nil
	case map[string]any:
		t := e.L.CreateTable(0, len(v))
		t.Metatable = e.marks.object
		for k, x := range v {
			lv, err := e.toLua(x, depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSetString(k, lv)
		}
		return t, nil
	}
	return nil, fmt.Errorf("unexpected JSON value %T", v)
}
