package sandbox

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// pySyntax spells calls as the Python sandbox's prelude accepts them:
// tools.<server>.<tool>(key=value), with tools["server"]["tool"] for
// names that are not Python identifiers or are keywords, and
// **{"key": value} for such argument names. The call returns the result.
type pySyntax struct{}

var pyKeywords = setOf(`False None True and as assert async await break class continue def del elif
	else except finally for from global if import in is lambda nonlocal not or pass raise return try
	while with yield`)

func pyIdent(s string) bool { return s != "" && ScriptIdent(s) == s && !pyKeywords[s] }

func (pySyntax) Ident(name string) bool { return pyIdent(name) }

func (pySyntax) ToolExpr(serverID, toolID string) string {
	if pyIdent(serverID) && pyIdent(toolID) {
		return "tools." + serverID + "." + toolID
	}
	return "tools[" + JSONString(serverID) + "][" + JSONString(toolID) + "]"
}

// signature lists keyword parameters, optional ones with "= None"; names
// that cannot be keywords go into a trailing **{...}.
func (pySyntax) Signature(expr string, ps []SigParam, more int) string {
	var plain, odd []string
	for _, p := range ps {
		if pyIdent(p.Name) {
			s := p.Name + ": " + p.Type
			if !p.Required {
				s += " = None"
			}
			plain = append(plain, s)
			continue
		}
		k := JSONString(p.Name)
		if !p.Required {
			k += "?"
		}
		odd = append(odd, k+": "+p.Type)
	}
	if len(odd) > 0 {
		plain = append(plain, "**{"+strings.Join(odd, ", ")+"}")
	}
	if more > 0 {
		plain = append(plain, "..."+strconv.Itoa(more)+" more")
	}
	return expr + "(" + strings.Join(plain, ", ") + ")"
}

func (pySyntax) Comment() string { return "#" }

func (pySyntax) Example(expr string, args []ExampleArg) string {
	var plain, odd []string
	for _, a := range args {
		if pyIdent(a.Name) {
			plain = append(plain, a.Name+"="+pyValue(a.Value))
		} else {
			odd = append(odd, JSONString(a.Name)+": "+pyValue(a.Value))
		}
	}
	if len(odd) > 0 {
		plain = append(plain, "**{"+strings.Join(odd, ", ")+"}")
	}
	return "r = " + expr + "(" + strings.Join(plain, ", ") + ")"
}

// pyValue writes a JSON value as a Python expression.
func pyValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "None"
	case bool:
		if x {
			return "True"
		}
		return "False"
	case string:
		return JSONString(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = pyValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = JSONString(k) + ": " + pyValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return JSONLiteral(v)
}

// JSONString quotes s as a JSON string without HTML escaping: also a valid
// Python and JavaScript string literal. Package index quotes with it too.
func JSONString(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	out := strings.TrimSuffix(buf.String(), "\n")
	// U+2028 and U+2029 end lines in older JavaScript; encoding/json escapes them already.
	return out
}
