package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// A Lua script's require loads the code API only: modules of the
// read-only servers/ and skills/ the sandbox binds in the working
// directory (Request.Tree), never a file the script could have written
// or any other path. require("servers.memory") runs servers/memory/init.lua
// (or servers/memory.lua) with the script's globals, once per run.

// luaModuleRE is a module name require accepts: servers or skills, then
// identifiers, dot-separated (no "..", no slashes).
var luaModuleRE = regexp.MustCompile(`^(servers|skills)(\.[A-Za-z_][A-Za-z0-9_]*)+$`)

// maxLuaModule bounds one module file.
const maxLuaModule = 1 << 20

// luaLoading marks a module being loaded, to refuse a require cycle.
var luaLoading = lua.LString("\x00loading")

// require is the script's require.
func (e *luaEnv) require(L *lua.LState) int {
	name := L.CheckString(1)
	if e.loaded == nil {
		e.loaded = map[string]lua.LValue{}
	}
	if v, ok := e.loaded[name]; ok {
		if v == luaLoading {
			L.RaiseError("require: %q requires itself", name)
		}
		L.Push(v)
		return 1
	}
	if !luaModuleRE.MatchString(name) {
		L.RaiseError(`require: only modules of servers/ and skills/ load, like require("servers.memory"); %q is not one`, name)
	}
	src, file := readLuaModule(strings.ReplaceAll(name, ".", "/"))
	if src == nil {
		L.RaiseError(`require: no module %q (neither %s.lua nor %s/init.lua); print(search_tools("...")) finds tools, and tools.SERVER.TOOL{...} calls any`,
			name, strings.ReplaceAll(name, ".", "/"), strings.ReplaceAll(name, ".", "/"))
	}
	fn, err := L.Load(bytes.NewReader(src), file)
	if err != nil {
		L.RaiseError("require %q: %v", name, err)
	}
	e.loaded[name] = luaLoading
	L.Push(fn)
	L.Call(0, 1)
	v := L.Get(-1)
	if v == lua.LNil {
		v = lua.LTrue
	}
	e.loaded[name] = v
	L.Pop(1)
	L.Push(v)
	return 1
}

// readLuaModule reads base.lua or base/init.lua from the working
// directory; nil when neither is there.
func readLuaModule(base string) ([]byte, string) {
	for _, f := range []string{base + ".lua", base + "/init.lua"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		b, err := io.ReadAll(io.LimitReader(fh, maxLuaModule+1))
		fh.Close()
		if err != nil {
			continue
		}
		if len(b) > maxLuaModule {
			return []byte(fmt.Sprintf("error(%q)", f+" is over 1 MiB")), f
		}
		return b, f
	}
	return nil, ""
}
