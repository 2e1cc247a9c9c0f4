package sandbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Syntax is how one script language spells a tool call, as its prelude
// accepts it: search_tools' signatures and example calls (package index
// renders with it). A language's Syntax is part of its Language.
type Syntax interface {
	// ToolExpr is the expression that names a tool ("tools.github.create_issue")
	// from the server's and the tool's script identifiers (ScriptIdent).
	ToolExpr(serverID, toolID string) string
	// Signature is a call with typed parameters, for reading, not running;
	// more counts the optional parameters left out.
	Signature(expr string, ps []SigParam, more int) string
	// Comment starts a comment to the end of the line.
	Comment() string
	// Example is a runnable call that keeps the result in a variable.
	Example(expr string, args []ExampleArg) string
	// Ident reports whether name may follow a dot in a tool expression
	// (tools.skills.NAME): an identifier that is not a reserved word of the
	// language.
	Ident(name string) bool
}

// SigParam is one parameter in a signature.
type SigParam struct {
	Name, Type string
	Required   bool
}

// ExampleArg is one argument of an example call.
type ExampleArg struct {
	Name  string
	Value any // a JSON value: string, float64, bool, nil, []any, map[string]any
}

// luaSyntax spells calls as the Lua sandbox accepts them:
// tools.<server>.<tool>{key = value} (a table argument), with
// ["..."] for names that are not Lua identifiers or are keywords.
type luaSyntax struct{}

var luaKeywords = setOf(`and break do else elseif end false for function goto if in local nil not
	or repeat return then true until while`)

func luaIdent(s string) bool {
	return s != "" && ScriptIdent(s) == s && !luaKeywords[s]
}

// luaField is ".name" or `["name"]`.
func luaField(name string) string {
	if luaIdent(name) {
		return "." + name
	}
	return "[" + luaString(name) + "]"
}

// luaKey is a table constructor key: name or ["name"].
func luaKey(name string) string {
	if luaIdent(name) {
		return name
	}
	return "[" + luaString(name) + "]"
}

func (luaSyntax) Ident(name string) bool { return luaIdent(name) }

func (luaSyntax) ToolExpr(serverID, toolID string) string {
	return "tools" + luaField(serverID) + luaField(toolID)
}

func (luaSyntax) Signature(expr string, ps []SigParam, more int) string {
	var b strings.Builder
	b.WriteString(expr)
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(luaKey(p.Name))
		if !p.Required {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		b.WriteString(p.Type)
	}
	if more > 0 {
		if len(ps) > 0 {
			b.WriteString(", ")
		}
		b.WriteString("..." + strconv.Itoa(more) + " more")
	}
	b.WriteByte('}')
	return b.String()
}

func (luaSyntax) Comment() string { return "--" }

func (luaSyntax) Example(expr string, args []ExampleArg) string {
	var b strings.Builder
	b.WriteString("local r = ")
	b.WriteString(expr)
	b.WriteByte('{')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(luaKey(a.Name))
		b.WriteString(" = ")
		b.WriteString(luaValue(a.Value))
	}
	b.WriteByte('}')
	return b.String()
}

// luaValue writes a JSON value as a Lua expression.
func luaValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nil"
	case string:
		return luaString(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = luaValue(e)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = luaKey(k) + " = " + luaValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return JSONLiteral(v)
}

// luaString quotes s as a Lua string literal; UTF-8 passes through.
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\%03d`, c) // three digits: a digit may follow
				continue
			}
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ScriptIdent maps a name to a script identifier: characters other than
// [A-Za-z0-9_] become '_', and a leading digit gets '_' prefixed.
// ScriptIdent("get-sum") is "get_sum", ScriptIdent("365") is "_365". It is
// how a server's or tool's name becomes part of the attribute chain a
// script calls (tools.server.tool) in every language.
func ScriptIdent(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 1)
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_':
			b.WriteRune(r)
		case r >= '0' && r <= '9':
			if i == 0 {
				b.WriteByte('_')
			}
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// JSONLiteral renders a JSON value compactly ("a", 3, true, null): in
// example calls here, and in the facts of index's rendered parameters.
func JSONLiteral(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case json.Number:
		return x.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "?"
	}
	return string(b)
}

// setOf is the set of the space-separated words of s.
func setOf(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
