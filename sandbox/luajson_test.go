package sandbox

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	lua "github.com/yuin/gopher-lua"
)

// The conversions run in this process here: the inputs are the test's own.

func newTestEnv(t testing.TB) *luaEnv {
	e := newLuaEnv(nil, io.Discard)
	t.Cleanup(e.L.Close)
	return e
}

// eval runs a Lua expression and returns its value.
func eval(t *testing.T, e *luaEnv, expr string) lua.LValue {
	t.Helper()
	if err := e.L.DoString("__v = " + expr); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return e.L.GetGlobal("__v")
}

func TestToJSON(t *testing.T) {
	tests := []struct {
		expr string
		want string
		err  string
	}{
		{`nil`, `null`, ""},
		{`json.null`, `null`, ""},
		{`true`, `true`, ""},
		{`42`, `42`, ""},
		{`-0`, `0`, ""},
		{`1e15`, `1000000000000000`, ""},
		{`2^53`, `9007199254740992`, ""},
		{`2^63`, `9223372036854776000`, ""},
		{`1e300`, `1e+300`, ""},
		{`-1.25`, `-1.25`, ""},
		{`"tab\there \"q\" \\ <b> é \1"`, `"tab\there \"q\" \\ <b> é \u0001"`, ""},
		{`"\255ok"`, `"\ufffdok"`, ""},
		{`{}`, `{}`, ""},
		{`{1, 2, {}}`, `[1,2,{}]`, ""},
		{`{json.null, 2}`, `[null,2]`, ""},
		{`{[1] = "a", [2] = "b"}`, `["a","b"]`, ""},
		{`{[2] = "b"}`, `{"2":"b"}`, ""},
		{`{[0] = "z", "a"}`, `{"0":"z","1":"a"}`, ""},
		{`{[1.5] = "x"}`, `{"1.5":"x"}`, ""},
		{`{[true] = 1}`, `{"true":1}`, ""},
		{`{[1] = "num", ["1"] = "str"}`, `{"1":"str"}`, ""},
		{`{z = 1, a = {b = {c = "d"}}}`, `{"a":{"b":{"c":"d"}},"z":1}`, ""},
		{`json.array()`, `[]`, ""},
		{`json.array(1, nil, "x", nil)`, `[1,null,"x",null]`, ""},
		{`{list = json.array(), obj = json.object()}`, `{"list":[],"obj":{}}`, ""},
		{`json.object{k = json.array(json.array()), "a", "b"}`, `{"1":"a","2":"b","k":[[]]}`, ""},
		{`(function() local a = json.array() a[#a + 1] = "x" table.insert(a, "y") return a end)()`, `["x","y"]`, ""},
		{`(function() local o = json.object() o[1] = "x" return o end)()`, `{"1":"x"}`, ""},
		{`setmetatable(json.array(), nil)`, `{}`, ""},
		{`(function() local a = json.array(1) a.n = 1 return a end)()`, ``, `cannot encode an array (from JSON or json.array) with the key "n"; its keys must be 1..n`},
		{`(function() local a = json.array() a[3] = 1 return a end)()`, ``, `cannot encode an array (from JSON or json.array) with a hole (largest index 3, element count 1); its keys must be 1..n`},
		{`{x = {json.array(1, 2, 3)}}`, `{"x":[[1,2,3]]}`, ""},
		{`0/0`, ``, "cannot encode NaN (JSON has no NaN or infinity)"},
		{`{x = 1/0}`, ``, "cannot encode inf (JSON has no NaN or infinity)"},
		{`{f = print}`, ``, "cannot encode a function value"},
		{`(function() local t = {} t[1] = {t} return t end)()`, ``, "cannot encode a table that contains itself"},
		{`(function() local t = {} local c = t for i = 1, 300 do c.n = {} c = c.n end return t end)()`, ``, "nested deeper than 200 levels"},
	}
	e := newTestEnv(t)
	for _, tt := range tests {
		got, err := e.toJSON(eval(t, e, tt.expr))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: error %v, want %q", tt.expr, err, tt.err)
			}
			continue
		}
		if err != nil || string(got) != tt.want {
			t.Errorf("%s = %s, %v; want %s", tt.expr, got, err, tt.want)
		}
	}
	// A table seen twice without a cycle is fine.
	if got, err := e.toJSON(eval(t, e, `(function() local s = {1} return {a = s, b = s} end)()`)); err != nil || string(got) != `{"a":[1],"b":[1]}` {
		t.Errorf("shared table: %s, %v", got, err)
	}
}

func TestFromJSON(t *testing.T) {
	e := newTestEnv(t)
	v, err := e.fromJSON([]byte(`{"a":[1,null,"x"],"b":{"c":true},"n":1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	e.L.SetGlobal("v", v)
	check := `return #v.a, v.a[2] == json.null, v.a[3], v.b.c, v.n, type(v.missing)`
	if err := e.L.DoString(check); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 1; i <= e.L.GetTop(); i++ {
		got = append(got, e.L.Get(i).String())
	}
	e.L.SetTop(0)
	if want := []string{"3", "true", "x", "true", "1.5", "nil"}; !cmp.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if v, err := e.fromJSON([]byte("null")); err != nil || v != lua.LNil {
		t.Errorf("top-level null = %v, %v; want nil", v, err)
	}
	if _, err := e.fromJSON([]byte(strings.Repeat("[", 300) + strings.Repeat("]", 300))); err == nil {
		t.Error("300 levels of nesting decoded; want an error")
	}
}

// TestJSONMarks: decoded arrays and objects keep their kind on the way back,
// empty or not, and when the script adds to them.
func TestJSONMarks(t *testing.T) {
	e := newTestEnv(t)
	tests := []struct {
		name string
		in   string // JSON, decoded into v
		code string // returns the value to encode
		want string
	}{
		{"round trip", `{"a":[],"b":{}}`, `return v`, `{"a":[],"b":{}}`},
		{"nested empties", `[[],{},[[]],{"x":[]}]`, `return v`, `[[],{},[[]],{"x":[]}]`},
		{"append to empty array", `{"a":[]}`, `v.a[#v.a + 1] = 1 return v.a`, `[1]`},
		{"table.insert into empty array", `[]`, `table.insert(v, "x") return v`, `["x"]`},
		{"emptied array", `[1,2]`, `v[2] = nil v[1] = nil return v`, `[]`},
		{"integer key into object", `{}`, `v[1] = true return v`, `{"1":true}`},
		{"json.decode marks too", `null`, `return json.decode('{"e":[]}')`, `{"e":[]}`},
		{"unmarked empty", `null`, `return {}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := e.fromJSON([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			e.L.SetGlobal("v", v)
			if err := e.L.DoString("__v = (function() " + tt.code + " end)()"); err != nil {
				t.Fatal(err)
			}
			got, err := e.toJSON(e.L.GetGlobal("__v"))
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}

// FuzzJSONRoundTrip: JSON → Lua → JSON keeps the value.
func FuzzJSONRoundTrip(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, `[[],{}]`, `"\u00e9\n"`, `1e-7`, `[null,null]`, `{"1":2}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want any
		if json.Unmarshal([]byte(s), &want) != nil {
			return
		}
		e := newTestEnv(t)
		v, err := e.fromJSON([]byte(s))
		if err != nil {
			return // too deep
		}
		out, err := e.toJSON(v)
		if err != nil {
			t.Fatalf("%s: encode: %v", s, err)
		}
		var got any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: invalid JSON out: %s", s, out)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s → %s (-want +got):\n%s", s, out, diff)
		}
	})
}
