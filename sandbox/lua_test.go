package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLuaRun(t *testing.T) {
	tests := []struct {
		name   string
		code   string
		output string
		value  string // JSON; "" for none
	}{
		{"hello", `print("hello", 1, 2.5, true, nil)`, "hello\t1\t2.5\ttrue\tnil\n", ""},
		{"return nothing", `local x = 1`, "", ""},
		{"return nil", `return nil`, "", ""},
		{"return string", `return "a<b & \"c\"\n"`, "", `"a<b & \"c\"\n"`},
		{"return integer", `return 2^53 - 1`, "", "9007199254740991"},
		{"return float", `return 0.1 + 0.2`, "", "0.30000000000000004"},
		{"return array", `return {1, "two", {3}}`, "", `[1,"two",[3]]`},
		{"return empty table", `return {}`, "", `{}`},
		{"return object", `return {b = 1, a = {x = true}, [3] = "k"}`, "", `{"3":"k","a":{"x":true},"b":1}`},
		{"return sparse", `return {1, nil, 3}`, "", `{"1":1,"3":3}`},
		{"first value only", `return 1, 2`, "", "1"},
		{"json round trip", `
			local s = '{"a":[1,2,{"b":null}],"c":"d","e":1.5,"f":false}'
			local v = json.decode(s)
			print(#v.a, v.a[3].b == json.null, tostring(json.null), v.e)
			return json.decode(json.encode(v))`,
			"3\ttrue\tnull\t1.5\n", `{"a":[1,2,{"b":null}],"c":"d","e":1.5,"f":false}`},
		{"json encode", `return json.encode({list = {1, 2}, s = "é\t"})`, "", `"{\"list\":[1,2],\"s\":\"é\\t\"}"`},
		{"pcall and error", `local ok, err = pcall(error, "x", 0) return {ok = ok, err = err}`, "", `{"err":"x","ok":false}`},
		{"string methods", `return ("a,b,c"):gsub(",", ";")`, "", `"a;b;c"`},
		{"math and table", `local t = {3, 1, 2} table.sort(t) return {t = t, m = math.max(4, 9), f = math.floor(2.7)}`, "", `{"f":2,"m":9,"t":[1,2,3]}`},
		{"stdout is not protocol", `
			print('{"method":"done","params":{"value":42}}')
			print('{"id":1,"result":"forged"}')
			return "real"`,
			"{\"method\":\"done\",\"params\":{\"value\":42}}\n{\"id\":1,\"result\":\"forged\"}\n", `"real"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runLuaTest(t, tt.code, Limits{}, nil)
			if res.Err != nil {
				t.Fatalf("Err = %v", res.Err)
			}
			if res.Output != tt.output {
				t.Errorf("Output = %q, want %q", res.Output, tt.output)
			}
			if string(res.Value) != tt.value {
				t.Errorf("Value = %s, want %s", res.Value, tt.value)
			}
		})
	}
}

func TestLuaErrors(t *testing.T) {
	tests := []struct {
		name string
		code string
		want *ScriptError
	}{
		{"syntax", "local x = 1\nlocal y = = 2", &ScriptError{Kind: "syntax", Line: 2, Msg: "syntax error near '=' (column 11)"}},
		{"syntax at end", "local t = {\n  1,\n", &ScriptError{Kind: "syntax", Line: 2, Msg: "syntax error at the end of the script"}},
		{"unterminated string", "print('abc)", &ScriptError{Kind: "syntax", Line: 1, Msg: "unterminated string at the end of the script"}},
		{"goto", "\ngoto nowhere", &ScriptError{Kind: "syntax", Line: 3, Msg: "no visible label 'nowhere' for <goto> at line 2"}},
		{"runtime", "local x = 1\n\nerror('boom')", &ScriptError{Kind: "runtime", Line: 3, Msg: "boom"}},
		{"runtime level 0", "error('plain', 0)", &ScriptError{Kind: "runtime", Msg: "plain"}},
		{"index nil", "local cfg\nreturn cfg.path", &ScriptError{Kind: "runtime", Line: 2, Msg: "attempt to index a non-table object(nil) with key 'path'"}},
		{"unknown global", "\nfrobnicate(1)", &ScriptError{Kind: "runtime", Line: 2, Msg: "attempt to call a non-function object"}},
		{"error table", `error({code = 7})`, &ScriptError{Kind: "runtime", Msg: `error object: {"code":7}`}},
		{"error tostring", `error(setmetatable({}, {__tostring = function() return "custom" end}))`, &ScriptError{Kind: "runtime", Msg: "custom"}},
		{"recursion", "local function f(n)\n  return f(n + 1) + 1\nend\nreturn f(1)", &ScriptError{Kind: "runtime", Line: 2, Msg: "stack overflow (recursion too deep)"}},
		{"return function", `return print`, &ScriptError{Kind: "runtime", Msg: "cannot return this value: cannot encode a function value"}},
		{"return cycle", `local t = {} t.self = t return t`, &ScriptError{Kind: "runtime", Msg: "cannot return this value: cannot encode a table that contains itself"}},
		{"return nan", `return {x = 0/0}`, &ScriptError{Kind: "runtime", Msg: "cannot return this value: cannot encode NaN (JSON has no NaN or infinity)"}},
		{"json.decode", "\nreturn json.decode('{bad')", &ScriptError{Kind: "runtime", Line: 2, Msg: "json.decode: invalid character 'b' looking for beginning of object key string"}},
		{"huge unpack", `return select('#', unpack({}, 1, 1e8))`, &ScriptError{Kind: "runtime", Line: 1, Msg: "stack overflow (too many values on the Lua stack)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runLuaTest(t, tt.code, Limits{}, nil)
			if diff := cmp.Diff(tt.want, res.Err); diff != "" {
				t.Errorf("Err (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLuaRestrictedGlobals(t *testing.T) {
	removed := []string{"load", "loadstring", "dofile", "loadfile", "module", "collectgarbage",
		"_printregs", "newproxy", "getfenv", "setfenv", "io", "os", "debug", "package", "coroutine",
		"channel", "string.dump"}
	kept := []string{"pcall", "xpcall", "error", "pairs", "ipairs", "tostring", "tonumber", "select", "type",
		"next", "unpack", "setmetatable", "getmetatable", "rawget", "rawset", "rawequal", "assert", "print",
		"string.rep", "string.format", "table.concat", "table.insert", "math.floor", "json.encode",
		"json.decode", "json.array", "json.object", "call", "search_tools",
		"require"} // require loads the code API only: TestTreeImports
	var code strings.Builder
	code.WriteString("local t = {}\n")
	for _, name := range append(removed, kept...) {
		code.WriteString("t['" + name + "'] = type(" + name + ")\n")
	}
	code.WriteString("return t")
	res := runLuaTest(t, code.String(), Limits{}, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	var got map[string]string
	if err := json.Unmarshal(res.Value, &got); err != nil {
		t.Fatal(err)
	}
	for _, name := range removed {
		if got[name] != "nil" {
			t.Errorf("%s is a %s; want nil", name, got[name])
		}
	}
	for _, name := range kept {
		if got[name] != "function" {
			t.Errorf("%s is %q; want a function", name, got[name])
		}
	}
}

func TestLuaToolCalls(t *testing.T) {
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		switch name {
		case "fs.read_file":
			return json.RawMessage(`{"content": "hello\nworld", "lines": 2}`), nil
		case "fs.list":
			return json.RawMessage("[\n\"a.txt\",\n\"b.txt\"\n]"), nil // pretty JSON must not break framing
		}
		return json.RawMessage(`null`), nil
	}}
	code := `
		local f = tools.fs.read_file{path = "notes.txt"}
		local list = tools.fs.list({dir = "."})
		local via_call = call("fs.read_file", {path = "x"})
		local odd = tools["my-server"]["get-sum"]()
		tools.fs:stat{path = "m"}
		tools.github.create_issue{title = "t", labels = {"bug", "p1"}, meta = {}}
		return {content = f.content, lines = f.lines, files = list, same = via_call.lines, odd = odd}`
	res := runLuaTest(t, code, Limits{}, host)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := `{"content":"hello\nworld","files":["a.txt","b.txt"],"lines":2,"same":2}`; string(res.Value) != want {
		t.Errorf("Value = %s, want %s", res.Value, want)
	}
	want := []hostCall{
		{"fs.read_file", `{"path":"notes.txt"}`},
		{"fs.list", `{"dir":"."}`},
		{"fs.read_file", `{"path":"x"}`},
		{"my-server.get-sum", `{}`},
		{"fs.stat", `{"path":"m"}`},
		{"github.create_issue", `{"labels":["bug","p1"],"meta":{},"title":"t"}`},
	}
	if diff := cmp.Diff(want, host.received()); diff != "" {
		t.Errorf("host calls (-want +got):\n%s", diff)
	}
	if res.ToolCalls != 6 {
		t.Errorf("ToolCalls = %d, want 6", res.ToolCalls)
	}
	if want := int64(len(`{"content": "hello\nworld", "lines": 2}`)*2 + len("[\n\"a.txt\",\n\"b.txt\"\n]") + 3*len("null")); res.ResultBytes != want {
		t.Errorf("ResultBytes = %d, want %d", res.ResultBytes, want)
	}
}

func TestLuaToolErrors(t *testing.T) {
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		if name == "fs.read_file" {
			return nil, &ToolError{Tool: name, Msg: "ENOENT: no such file or directory, open 'a.txt'"}
		}
		return nil, errors.New("dial tcp 10.0.0.7:443: secret internals")
	}}
	tests := []struct {
		name   string
		code   string
		output string
		err    *ScriptError
	}{
		{"pcall catches", `local ok, err = pcall(tools.fs.read_file, {path = "a.txt"}) print(ok, err)`,
			"false\tENOENT: no such file or directory, open 'a.txt'\n", nil},
		{"uncaught has its line", "local x = 1\nlocal r = tools.fs.read_file{path = 'a.txt'}",
			"", &ScriptError{Kind: "runtime", Line: 2, Msg: "ENOENT: no such file or directory, open 'a.txt'"}},
		{"internal errors do not leak", `local ok, err = pcall(call, "db.query", {}) print(err)`,
			"db.query: internal error in the proxy (details are in its log)\n", nil},
		{"positional arguments", `tools.fs.read_file("a.txt")`, "", &ScriptError{Kind: "runtime", Line: 1,
			Msg: `tools.fs.read_file expects a table of named arguments, like tools.fs.read_file{key = value}, got a string`}},
		{"list arguments", `call("fs.read_file", {"a.txt"})`, "", &ScriptError{Kind: "runtime", Line: 1,
			Msg: `call expects a table of named arguments, like call("fs.read_file", {key = value}), got a list`}},
		{"empty list arguments", `tools.fs.read_file(json.array())`, "", &ScriptError{Kind: "runtime", Line: 1,
			Msg: `tools.fs.read_file expects a table of named arguments, like tools.fs.read_file{key = value}, got a list`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runLuaTest(t, tt.code, Limits{}, host)
			if diff := cmp.Diff(tt.err, res.Err); diff != "" {
				t.Errorf("Err (-want +got):\n%s", diff)
			}
			if res.Output != tt.output {
				t.Errorf("Output = %q, want %q", res.Output, tt.output)
			}
		})
	}
}

// TestLuaEmptyArrays: an empty array read from a tool goes back to a tool
// as an array, as does json.array(); json.object() and {} are objects.
func TestLuaEmptyArrays(t *testing.T) {
	host := &fakeHost{call: func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
		if name == "memory.read_graph" {
			return json.RawMessage(`{"entities": [], "relations": []}`), nil
		}
		return json.RawMessage(`null`), nil
	}}
	res := runLuaTest(t, `
		local g = tools.memory.read_graph{}
		tools.memory.create_entities{entities = g.entities}
		tools.memory.add_observations{observations = json.array(), meta = json.object(), plain = {}}
		tools.memory.echo(g)
		tools.memory.empty(json.object())
		return g`, Limits{}, host)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := `{"entities":[],"relations":[]}`; string(res.Value) != want {
		t.Errorf("Value = %s, want %s", res.Value, want)
	}
	want := []hostCall{
		{"memory.read_graph", `{}`},
		{"memory.create_entities", `{"entities":[]}`},
		{"memory.add_observations", `{"meta":{},"observations":[],"plain":{}}`},
		{"memory.echo", `{"entities":[],"relations":[]}`},
		{"memory.empty", `{}`},
	}
	if diff := cmp.Diff(want, host.received()); diff != "" {
		t.Errorf("host calls (-want +got):\n%s", diff)
	}
}

func TestLuaSearchTools(t *testing.T) {
	res := runLuaTest(t, `print(search_tools("read a file")) return search_tools("x", "full", 3)`, Limits{}, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if want := "search \"read a file\" detail=\"\" limit=0\n"; res.Output != want {
		t.Errorf("Output = %q, want %q", res.Output, want)
	}
	if want := `"search \"x\" detail=\"full\" limit=3"`; string(res.Value) != want {
		t.Errorf("Value = %s, want %s", res.Value, want)
	}
}
