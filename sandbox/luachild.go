package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// This file is the Lua half of the child: it runs inside the re-executed
// process, never in the proxy.

// luaOptions bound the interpreter so that deep recursion and huge unpacks
// are Lua errors ("stack overflow"), not crashes.
var luaOptions = lua.Options{
	SkipOpenLibs:     true,
	CallStackSize:    200,
	RegistrySize:     16 << 10,
	RegistryGrowStep: 64 << 10, // growth copies the stack: grow in big steps
	RegistryMaxSize:  1 << 20,  // values on the Lua stack: 16 MiB at most
}

// luaRemoved are base functions a script must not have: they load code
// (source or bytecode) or files, or reach into the interpreter.
var luaRemoved = []string{"load", "loadstring", "loadfile", "dofile", "require", "module",
	"collectgarbage", "_printregs", "newproxy", "getfenv", "setfenv"}

// luaEnv is one script's interpreter with its bridge.
type luaEnv struct {
	L      *lua.LState
	b      *childBridge
	null   *lua.LUserData // json.null
	marks  jsonMarks      // the metatables of JSON arrays and objects
	stdout io.Writer
	loaded map[string]lua.LValue // modules require loaded (luarequire.go)
	// lastToolErr is the last bridge error raised into the script, with the
	// line of the call, so an uncaught one still reports "script:LINE".
	lastToolErr struct {
		msg  string
		line int
	}
}

// preparedLua is the interpreter prepareLua built, for runLua.
var preparedLua *luaEnv

// prepareLua builds the interpreter before the script comes (childPrepare):
// in a warm child, while it waits for its run.
func prepareLua() {
	warmUpLua()
	preparedLua = newLuaEnv(nil, os.Stdout)
}

// warmUpLua goes once, in a throwaway interpreter, down the path a run
// takes: decoding a run frame, compiling and running a script, encoding its
// value and the done frame. A fresh process's first pass over its code and
// heap takes page faults, costly under a hypervisor's paging (measured: a
// trivial run's interpreter step 517 → 300 µs at p50); a warm child takes
// them while it waits instead of on the run's clock.
func warmUpLua() {
	var f frame
	var p runParams
	if json.Unmarshal([]byte(`{"method":"run","params":{"code":"return 1","limits":{"memory_bytes":1}}}`), &f) == nil {
		_ = json.Unmarshal(f.Params, &p)
	}
	e := newLuaEnv(nil, io.Discard)
	d := e.run(`local t = {n = 1, s = "x" .. tostring(2), l = {1, 2}} print(t.s) return t`, false)
	e.L.Close()
	mustJSON(&frame{Method: methodDone, Params: mustJSON(d)})
}

// runLua is the "lua" childRuntime.
func runLua(b *childBridge, p *runParams) doneParams {
	e := preparedLua
	if e == nil {
		e = newLuaEnv(b, os.Stdout)
	}
	e.b = b
	defer e.L.Close()
	if p.Args != nil {
		v, err := e.fromJSON(p.Args)
		if err != nil {
			return doneParams{Error: &wireError{Kind: "runtime", Msg: "args: " + err.Error()}}
		}
		e.L.SetGlobal("args", v)
	}
	return e.run(p.Code, p.Check)
}

func newLuaEnv(b *childBridge, stdout io.Writer) *luaEnv {
	L := lua.NewState(luaOptions)
	e := &luaEnv{L: L, b: b, stdout: stdout}
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	g := L.G.Global
	for _, name := range luaRemoved {
		g.RawSetString(name, lua.LNil)
	}
	if s, ok := g.RawGetString("string").(*lua.LTable); ok {
		s.RawSetString("dump", lua.LNil)
	}
	L.SetGlobal("print", L.NewFunction(e.print))
	L.SetGlobal("json", e.jsonModule())
	L.SetGlobal("tools", e.toolsTable())
	L.SetGlobal("call", L.NewFunction(e.call))
	L.SetGlobal("search_tools", L.NewFunction(e.searchTools))
	L.SetGlobal("require", L.NewFunction(e.require))
	skills := L.NewTable()
	skills.RawSetString("save", L.NewFunction(e.saveSkill))
	L.SetGlobal("skills", skills)
	return e
}

// run compiles and runs code as the chunk "script" and reports the
// outcome; with check it only compiles.
func (e *luaEnv) run(code string, check bool) doneParams {
	fn, err := e.L.Load(strings.NewReader(code), "script")
	if err != nil {
		return doneParams{Error: luaSyntaxError(err, code)}
	}
	if check {
		return doneParams{}
	}
	e.L.Push(fn)
	if err := e.L.PCall(0, 1, nil); err != nil {
		return doneParams{Error: e.runtimeError(err)}
	}
	v := e.L.Get(-1)
	if v == lua.LNil {
		return doneParams{}
	}
	raw, err := e.toJSON(v)
	if err != nil {
		return doneParams{Error: &wireError{Kind: "runtime", Msg: "cannot return this value: " + err.Error()}}
	}
	return doneParams{Value: raw}
}

// print writes its arguments, tab-separated, and a newline to stdout.
func (e *luaEnv) print(L *lua.LState) int {
	var sb strings.Builder
	for i := 1; i <= L.GetTop(); i++ {
		if i > 1 {
			sb.WriteByte('\t')
		}
		sb.WriteString(L.ToStringMeta(L.Get(i)).String())
	}
	sb.WriteByte('\n')
	io.WriteString(e.stdout, sb.String())
	return 0
}

// toolsTable is `tools`: tools.<server>.<tool> is created on first use, so
// any name works until it is called; the proxy resolves it.
func (e *luaEnv) toolsTable() *lua.LTable {
	L := e.L
	tools := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		server, ok := L.Get(2).(lua.LString)
		if !ok {
			return 0
		}
		ns := L.NewTable()
		nsMeta := L.NewTable()
		nsMeta.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
			tool, ok := L.Get(2).(lua.LString)
			if !ok {
				return 0
			}
			fn := e.toolFunc(ns, string(server)+"."+string(tool))
			ns.RawSetString(string(tool), fn)
			L.Push(fn)
			return 1
		}))
		L.SetMetatable(ns, nsMeta)
		tools.RawSetString(string(server), ns)
		L.Push(ns)
		return 1
	}))
	L.SetMetatable(tools, mt)
	return tools
}

// toolFunc is tools.<server>.<tool>: called with one table of arguments,
// or as a method (tools.fs:read_file{...}), which passes ns first.
func (e *luaEnv) toolFunc(ns *lua.LTable, name string) *lua.LFunction {
	return e.L.NewFunction(func(L *lua.LState) int {
		args := L.Get(1)
		if args == ns {
			args = L.Get(2)
		}
		return e.callTool(L, name, args, "tools."+name, "tools."+name+"{key = value}")
	})
}

// call is call("server.tool", {args}).
func (e *luaEnv) call(L *lua.LState) int {
	name := L.CheckString(1)
	return e.callTool(L, name, L.Get(2), "call", "call(\""+name+"\", {key = value})")
}

// callTool sends a tool call and pushes its result. A failure is raised as
// a Lua error whose value is the message alone, so pcall gets the
// upstream's text.
func (e *luaEnv) callTool(L *lua.LState, name string, args lua.LValue, fn, example string) int {
	raw, err := e.toArgs(args, fn, example)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	res, err := e.b.request(methodCall, callParams{Name: name, Args: raw}, "the arguments to "+name)
	if err != nil {
		e.raiseToolError(err.Error())
	}
	v, err := e.fromJSON(res)
	if err != nil {
		L.RaiseError("%s returned invalid JSON: %v", name, err)
	}
	L.Push(v)
	return 1
}

// searchTools is search_tools(query [, detail [, limit]]): the rendered text.
func (e *luaEnv) searchTools(L *lua.LState) int {
	p := searchParams{Query: L.CheckString(1), Detail: L.OptString(2, ""), Limit: L.OptInt(3, 0)}
	res, err := e.b.request(methodSearch, p, "the search query")
	if err != nil {
		e.raiseToolError(err.Error())
	}
	v, err := e.fromJSON(res)
	if err != nil {
		L.RaiseError("search_tools returned invalid JSON: %v", err)
	}
	L.Push(v)
	return 1
}

// saveSkill is skills.save{name = ..., description = ..., language = ...,
// code = ..., parameters = ..., overwrite = ...}: the proxy checks and
// saves it (SkillSaver) and returns what it saved.
func (e *luaEnv) saveSkill(L *lua.LState) int {
	spec := L.Get(1)
	if spec == lua.LNil {
		L.RaiseError(`skills.save takes one table: skills.save{name = "...", description = "...", language = "lua", code = [[...]]}`)
	}
	raw, err := e.toArgs(spec, "skills.save", `skills.save{name = "...", description = "...", language = "lua", code = [[...]]}`)
	if err != nil {
		L.RaiseError("%s", err.Error())
	}
	res, err := e.b.request(methodSave, json.RawMessage(raw), "the skill")
	if err != nil {
		e.raiseToolError(err.Error())
	}
	v, err := e.fromJSON(res)
	if err != nil {
		L.RaiseError("skills.save returned invalid JSON: %v", err)
	}
	L.Push(v)
	return 1
}

// raiseToolError raises msg as the error value and remembers the line.
func (e *luaEnv) raiseToolError(msg string) {
	e.lastToolErr.msg = msg
	e.lastToolErr.line = whereLine(e.L.Where(1))
	e.L.Error(lua.LString(msg), 0)
}

var whereRE = regexp.MustCompile(`^script:(\d+):`)

func whereLine(where string) int {
	if m := whereRE.FindStringSubmatch(where); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// luaSyntaxError maps a Load error to a "syntax" ScriptError with its line.
func luaSyntaxError(err error, code string) *wireError {
	cause := err
	if ae, ok := err.(*lua.ApiError); ok && ae.Cause != nil {
		cause = ae.Cause
	}
	var pe *parse.Error
	var ce *lua.CompileError
	switch {
	case errors.As(cause, &pe):
		msg := strings.TrimSpace(pe.Message)
		if pe.Pos.Line == parse.EOF {
			return &wireError{Kind: "syntax", Line: lastLine(code), Msg: msg + " at the end of the script"}
		}
		return &wireError{Kind: "syntax", Line: pe.Pos.Line,
			Msg: fmt.Sprintf("%s near '%s' (column %d)", msg, pe.Token, pe.Pos.Column)}
	case errors.As(cause, &ce):
		return &wireError{Kind: "syntax", Line: ce.Line, Msg: ce.Message}
	}
	return &wireError{Kind: "syntax", Msg: strings.TrimSpace(err.Error())}
}

// lastLine is the number of the last non-blank line of code.
func lastLine(code string) int {
	return strings.Count(strings.TrimRight(code, " \t\r\n"), "\n") + 1
}

var runtimeRE = regexp.MustCompile(`(?s)^script:(\d+): (.*)$`)

// runtimeError maps a PCall error to a "runtime" ScriptError: the line from
// the "script:LINE: " prefix, the message without it.
func (e *luaEnv) runtimeError(err error) *wireError {
	var ae *lua.ApiError
	if !errors.As(err, &ae) {
		return &wireError{Kind: "runtime", Msg: err.Error()}
	}
	if ae.Type == lua.ApiErrorPanic {
		return &wireError{Kind: "runtime", Msg: "internal interpreter error: " + ae.Object.String()}
	}
	msg := e.errorValueText(ae.Object)
	line := 0
	if m := runtimeRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	} else if msg == e.lastToolErr.msg {
		line = e.lastToolErr.line
	}
	switch msg {
	case "stack overflow":
		msg = "stack overflow (recursion too deep)"
	case "registry overflow":
		msg = "stack overflow (too many values on the Lua stack)"
	}
	return &wireError{Kind: "runtime", Line: line, Msg: msg}
}

// errorValueText renders an error value: strings as they are, others by
// __tostring, as JSON, or by their type.
func (e *luaEnv) errorValueText(v lua.LValue) string {
	if s, ok := v.(lua.LString); ok {
		return string(s)
	}
	if fn := e.L.GetMetaField(v, "__tostring"); fn != lua.LNil {
		if err := e.L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, v); err == nil {
			s, ok := e.L.Get(-1).(lua.LString)
			e.L.Pop(1)
			if ok {
				return string(s)
			}
		}
	}
	if raw, err := e.toJSON(v); err == nil {
		return "error object: " + string(raw)
	}
	return "error object is a " + v.Type().String() + " value"
}
