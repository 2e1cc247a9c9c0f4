package sandbox

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// jsSyntax spells calls as the JavaScript sandbox's prelude accepts them:
// await tools.<server>.<tool>({key: value}), with tools["server"]["tool"]
// for names that are not identifiers or are reserved words, and quoted
// keys for argument names that are not identifiers.
type jsSyntax struct{}

var jsReserved = setOf(`break case catch class const continue debugger default delete do else enum export
	extends false finally for function if import in instanceof new null return super switch this throw
	true try typeof var void while with yield let static implements interface package private protected
	public await`)

func jsIdent(s string) bool { return s != "" && ScriptIdent(s) == s && !jsReserved[s] }

// jsKey is an object literal key: the name, or the name quoted.
func jsKey(name string) string {
	if ScriptIdent(name) == name && name != "" {
		return name // reserved words are fine as keys
	}
	return JSONString(name)
}

func (jsSyntax) Ident(name string) bool { return jsIdent(name) }

func (jsSyntax) ToolExpr(serverID, toolID string) string {
	if jsIdent(serverID) && jsIdent(toolID) {
		return "tools." + serverID + "." + toolID
	}
	return "tools[" + JSONString(serverID) + "][" + JSONString(toolID) + "]"
}

func (jsSyntax) Signature(expr string, ps []SigParam, more int) string {
	parts := make([]string, 0, len(ps)+1)
	for _, p := range ps {
		k := jsKey(p.Name)
		if !p.Required {
			k += "?"
		}
		parts = append(parts, k+": "+p.Type)
	}
	if more > 0 {
		parts = append(parts, "..."+strconv.Itoa(more)+" more")
	}
	return "await " + expr + "({" + strings.Join(parts, ", ") + "})"
}

func (jsSyntax) Comment() string { return "//" }

func (jsSyntax) Example(expr string, args []ExampleArg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = jsKey(a.Name) + ": " + jsValue(a.Value)
	}
	return "const r = await " + expr + "({" + strings.Join(parts, ", ") + "});"
}

// jsValue writes a JSON value as a JavaScript expression.
func jsValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return JSONString(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = jsValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = jsKey(k) + ": " + jsValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return JSONLiteral(v)
}
