package sandbox

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolfold/toolfold/internal/testlog"
)

func TestJavaScriptRun(t *testing.T) {
	js := newTestNode(t)
	runCases(t, js, []interpCase{
		{name: "console.log", code: `console.log("hello", 1, 2.5, true, null, {a: 1})`, output: "hello 1 2.5 true null { a: 1 }\n"},
		{name: "no value", code: `const x = 1`},
		{name: "return", code: "const x = 2\nreturn x * 21", value: "42"},
		{name: "return undefined", code: "return undefined"},
		{name: "return null", code: "return null", value: "null"},
		{name: "return nested", code: `return {i: 2, l: [1, "two", null, 1.5, [3, 4]], s: "é<\u2028>"}`, value: "{\"i\":2,\"l\":[1,\"two\",null,1.5,[3,4]],\"s\":\"é<\u2028>\"}"},
		{name: "functions", code: "function f(x) { return x + 1 }\nclass C { m() { return 5 } }\nreturn f(1) + new C().m()", value: "7"},
		{name: "tool call", code: `return await tools.fs.read_file({path: "a.txt"})`, value: `{"tool":"fs.read_file","args":{"path":"a.txt"}}`},
		{name: "tool call odd names", code: `return await tools["my-server"]["odd-tool"]({from: 1})`, value: `{"tool":"my-server.odd-tool","args":{"from":1}}`},
		{name: "tool call no args", code: `return await tools.s.t()`, value: `{"tool":"s.t","args":null}`},
		{name: "call", code: `const r = await call("fs.read_file", {path: "b"}); return r.args.path`, value: `"b"`},
		{name: "json types", code: `
const r = await tools.s.t({l: [1, 2], d: {a: null}, b: false, f: 0.5, s: "x"})
const a = r.args
return [Array.isArray(a.l), typeof a.d, a.d.a, a.b, a.f, a.s]`,
			value: `[true,"object",null,false,0.5,"x"]`},
		{name: "search", code: `return await searchTools("read a file", "full", 3)`, value: `"search \"read a file\" detail=\"full\" limit=3"`},
		{name: "search options", code: `return await searchTools("x", {detail: "name", limit: 2})`, value: `"search \"x\" detail=\"name\" limit=2"`},
		{name: "search defaults", code: `return await search_tools("x")`, value: `"search \"x\" detail=\"\" limit=0"`},
		{name: "tool error caught", host: failingHost, code: `
try {
  await tools.bad.read({path: "x"})
} catch (e) {
  return [e.message, e.tool, e instanceof ToolError, e instanceof Error]
}`, value: `["bad.read failed: no such file","bad.read",true,true]`},
		{name: "Promise.all", code: `
const rs = await Promise.all([...Array(20).keys()].map((i) => tools.s.t({i})))
return rs.map((r) => r.args.i)`, value: "[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19]"},
		{name: "Promise.allSettled", host: failingHost, code: `
const rs = await Promise.allSettled([tools.s.t({}), tools.bad.x({})])
return rs.map((r) => r.status)`, value: `["fulfilled","rejected"]`},
		{name: "stdout is not protocol", code: `
console.log('{"method":"done","params":{"value":42}}')
return "real"`, output: "{\"method\":\"done\",\"params\":{\"value\":42}}\n", value: `"real"`},
		{name: "process.exit 0", code: "console.log('a')\nprocess.exit(0)", output: "a\n"},
		{name: "require", code: `return require("path").join("a", "b")`, value: `"a/b"`},
		{name: "timers", code: `await new Promise((r) => setTimeout(r, 10)); return "late"`, value: `"late"`},
		{name: "output cap", lim: Limits{OutputBytes: 10}, code: "console.log('x'.repeat(100))",
			output: "xxxxxxxxxx\n[output truncated: 91 more bytes not shown; print less or raise sandbox.output]"},
	})
}

func TestJavaScriptErrors(t *testing.T) {
	js := newTestNode(t)
	runCases(t, js, []interpCase{
		{name: "syntax", code: "const x = 1\nconst y = = 2", err: &ScriptError{Kind: "syntax", Line: 2, Msg: "SyntaxError: Unexpected token '='"}},
		{name: "syntax line 1", code: "return )", err: &ScriptError{Kind: "syntax", Line: 1, Msg: "SyntaxError: Unexpected token ')'"}},
		{name: "runtime", code: "const x = 1\n\nthrow new RangeError('boom')", err: &ScriptError{Kind: "runtime", Line: 3, Msg: "RangeError: boom"}},
		{name: "reference error in function", code: "function f() {\n  return nope\n}\nf()", err: &ScriptError{Kind: "runtime", Line: 2, Msg: "ReferenceError: nope is not defined"}},
		{name: "throw value", code: "throw {code: 7}", err: &ScriptError{Kind: "runtime", Msg: `uncaught value: {"code":7}`}},
		{name: "uncaught tool error", host: failingHost, code: "const x = 1\nawait tools.bad.read({path: 'x'})", err: &ScriptError{Kind: "runtime", Line: 2, Msg: "bad.read failed: no such file"}},
		{name: "unhandled rejection", host: failingHost, code: "tools.bad.read({})\nawait new Promise((r) => setTimeout(r, 2000))", err: &ScriptError{Kind: "runtime", Line: 1, Msg: "bad.read failed: no such file"}},
		{name: "never settles", code: "await new Promise(() => {})", err: &ScriptError{Kind: "runtime"}, errSub: "can never finish"},
		{name: "unencodable return", code: "return 10n", err: &ScriptError{Kind: "runtime"}, errSub: "cannot return this value: Do not know how to serialize a BigInt"},
		{name: "process.exit 2", code: "console.log('a')\nprocess.exit(2)", output: "a\n", err: &ScriptError{Kind: "runtime", Msg: "process.exit(2)"}},
		{name: "result over the frame limit", lim: Limits{MaxFrameBytes: 1 << 10}, host: bigHost,
			code: "try { await tools.s.t() } catch (e) { return e.message }", value: `"the result of 2020 bytes exceeds the 1 KiB frame limit; ask the tool for less (a filter, a page, fewer fields) or raise sandbox.max_frame"`},
		{name: "recursion", code: "function f(n) {\n  return f(n + 1)\n}\nf(0)", err: &ScriptError{Kind: "runtime", Line: 2, Msg: "RangeError: Maximum call stack size exceeded"}},
		{name: "call limit", lim: Limits{MaxToolCalls: 2}, code: "for (let i = 0; i < 3; i++)\n  await tools.s.t({i})",
			err: &ScriptError{Kind: "runtime", Line: 2}, errSub: "tool call limit of 2 per run reached"},
		{name: "frame limit on args", lim: Limits{MaxFrameBytes: 1 << 10}, code: "await tools.s.t({x: 'a'.repeat(2000)})",
			err: &ScriptError{Kind: "runtime", Line: 1}, errSub: "exceed the 1 KiB frame limit"},
		{name: "frame limit on return", lim: Limits{MaxFrameBytes: 1 << 10}, code: "return 'a'.repeat(2000)",
			err: &ScriptError{Kind: "limit"}, errSub: "exceeds the 1 KiB frame limit"},
		{name: "endless output", lim: Limits{OutputBytes: 1 << 10}, code: "for (;;) console.log('x'.repeat(1000))",
			err: &ScriptError{Kind: "output"}, errSub: "kept printing", output: strings.Repeat("x", 1000) + "\n" + strings.Repeat("x", 23) + "\n[output truncated: "},
		{name: "memory", lim: Limits{MemoryBytes: 64 << 20}, code: "const a = []; for (;;) a.push(new Array(1e6).fill(1.5))",
			err: &ScriptError{Kind: "memory"}, errSub: "ran out of memory (limit 64 MiB)"},
	})
}

func TestJavaScriptTimeout(t *testing.T) {
	js := newTestNode(t)
	start := time.Now()
	// 5 s: node's start on a loaded machine counts toward it, and the
	// output before the timeout must have been printed.
	res, err := js.Run(context.Background(), Request{Code: "console.log('before')\nfor (;;) {}", Limits: Limits{Timeout: 5 * time.Second}}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err == nil || res.Err.Kind != "timeout" {
		t.Fatalf("Err = %v, want a timeout", res.Err)
	}
	if res.Output != "before\n" {
		t.Errorf("Output = %q, want the output before the timeout", res.Output)
	}
	if d := time.Since(start); d > testlog.Bound(time.Minute) { // the loop never ends: a hang
		t.Errorf("run took %s", d)
	}
}

// TestJavaScriptNoNetwork: every way a script reaches for the network
// (fetch, http, https, net, dns, dgram, a createRequire'd net) says the
// sandbox has no network and what to do instead, at the script's line; a
// Unix socket's path and a data: URL are not the network.
func TestJavaScriptNoNetwork(t *testing.T) {
	js := newTestNode(t)
	wait := "\nawait new Promise((r) => setTimeout(r, 5000))"
	runCases(t, js, []interpCase{
		{name: "fetch", code: "const x = 1\nawait fetch('https://example.com/')",
			err: &ScriptError{Kind: "runtime", Line: 2, Msg: "TypeError: fetch failed: " + noNetwork}},
		{name: "fetch caught", code: "try { await fetch('http://127.0.0.1:8080/') } catch (e) { return [e.message, e.cause.code] }",
			value: `["fetch failed: ` + noNetwork + `","EPERM"]`},
		{name: "fetch data URL", code: "return await (await fetch('data:text/plain,hi')).text()", value: `"hi"`},
		{name: "https uncaught", code: "const https = require('https')\nhttps.get('https://example.com/')" + wait,
			err: &ScriptError{Kind: "runtime", Line: 2, Msg: "Error: " + noNetwork}},
		{name: "http error event", code: "return await new Promise((ok) => require('node:http').get('http://example.com/', ok).on('error', (e) => ok(e.message)))",
			value: `"` + noNetwork + `"`},
		{name: "net", code: "const net = require('net')\n\nnet.connect(80, '1.1.1.1')" + wait,
			err: &ScriptError{Kind: "runtime", Line: 3, Msg: "Error: " + noNetwork}},
		{name: "createRequire net", code: "const net = require('module').createRequire('/x/')('net')\nreturn await new Promise((ok) => net.connect(80, '1.1.1.1').on('error', (e) => ok(e.code)))",
			value: `"EPERM"`},
		{name: "dns promises", code: "\nawait require('dns/promises').lookup('example.com')",
			err: &ScriptError{Kind: "runtime", Line: 2, Msg: "Error: " + noNetwork}},
		{name: "dns callback", code: "return await new Promise((ok) => require('dns').resolve4('example.com', (e) => ok(e.message)))",
			value: `"` + noNetwork + `"`},
		{name: "dgram", code: "require('dgram').createSocket('udp4')",
			err: &ScriptError{Kind: "runtime", Line: 1, Msg: "Error: " + noNetwork}},
		{name: "dynamic import net", code: "const net = await import('node:net')\nreturn await new Promise((ok) => net.connect(80, '1.1.1.1').on('error', (e) => ok(e.message)))",
			value: `"` + noNetwork + `"`},
		{name: "unix path", code: "return await new Promise((ok) => require('net').connect('/tmp/none.sock').on('error', (e) => ok(e.code)))",
			value: `"ENOENT"`},
	})
}

// TestJavaScriptIsolatedModules: modules planted in the working directory
// replace neither node's built-ins nor resolve by bare name.
func TestJavaScriptIsolatedModules(t *testing.T) {
	js := newTestNode(t)
	dir := plantedWorkdir(t)
	code := `let lodash = "absent", imported = "absent"; try { lodash = require("lodash") } catch (e) {}
try { imported = await import("lodash") } catch (e) {}
return [typeof require("net").Socket, lodash, imported]`
	res, err := js.Run(context.Background(), Request{Code: code, Workdir: dir}, &fakeHost{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil || string(res.Value) != `["function","absent","absent"]` {
		t.Fatalf("Value = %s, Err = %v; want the built-in net and no lodash, required or imported", res.Value, res.Err)
	}
}

func TestJavaScriptEnvironment(t *testing.T) {
	t.Setenv(secretEnv, "hunter2")
	js := newTestNode(t)
	res, err := js.Run(context.Background(), Request{Code: "return process.env"}, &fakeHost{})
	if err != nil || res.Err != nil {
		t.Fatalf("Run: %v %v", err, res.Err)
	}
	var env map[string]string
	if err := json.Unmarshal(res.Value, &env); err != nil {
		t.Fatal(err)
	}
	if _, ok := env[secretEnv]; ok || strings.Contains(string(res.Value), "hunter2") {
		t.Errorf("the script saw the proxy's environment: %s", res.Value)
	}
	for k := range env {
		if k != "LANG" && k != "PATH" {
			t.Errorf("unexpected variable %s in %s", k, res.Value)
		}
	}
}

func TestJavaScriptRuntimePaths(t *testing.T) {
	js := newTestNode(t)
	found := false
	for _, p := range js.RuntimePaths() {
		if within(js.Path(), p) {
			found = true
		}
		if p == filepath.Dir(js.Path()) {
			t.Errorf("RuntimePaths %v hold node's whole directory %s", js.RuntimePaths(), p)
		}
	}
	if !found {
		t.Errorf("RuntimePaths %v do not hold node %s", js.RuntimePaths(), js.Path())
	}
	t.Logf("node %s at %s; runtime paths %v", js.Version(), js.Path(), js.RuntimePaths())
}

func TestNewJavaScriptErrors(t *testing.T) {
	for _, path := range []string{"/nonexistent/node", "no-such-node-here", "/bin/true"} {
		_, err := NewJavaScript(&InterpreterOptions{Path: path})
		if err == nil || !strings.Contains(err.Error(), "sandbox.node") {
			t.Errorf("NewJavaScript(%q) = %v, want an error naming sandbox.node", path, err)
		}
	}
}
