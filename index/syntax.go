package index

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// syntax is how one script language spells a tool call. Render uses it for
// signatures and example calls; a language is added by writing one.
type syntax interface {
	// toolExpr is the expression that names a tool ("tools.github.create_issue").
	toolExpr(serverID, toolID string) string
	// signature is a call with typed parameters, for reading, not running.
	signature(expr string, ps []sigParam, more int) string
	// comment starts a comment to the end of the line.
	comment() string
	// example is a runnable call that keeps the result in a variable.
	example(expr string, args []exampleArg) string
}

// sigParam is one parameter in a signature.
type sigParam struct {
	name, typ string
	required  bool
}

// exampleArg is one argument of an example call.
type exampleArg struct {
	name  string
	value any // a JSON value: string, float64, bool, nil, []any, map[string]any
}

// syntaxes are the script languages Render knows; others fall back to Lua.
var syntaxes = map[string]syntax{
	"lua":        luaSyntax{},
	"python":     pySyntax{},
	"javascript": jsSyntax{},
}

// Languages lists the script languages Render can spell calls in.
func Languages() []string { return []string{"javascript", "lua", "python"} }

func syntaxFor(lang string) syntax {
	l := strings.ToLower(lang)
	switch l {
	case "py", "python3":
		l = "python"
	case "js", "node", "nodejs":
		l = "javascript"
	}
	if s, ok := syntaxes[l]; ok {
		return s
	}
	return luaSyntax{}
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

func (luaSyntax) toolExpr(serverID, toolID string) string {
	return "tools" + luaField(serverID) + luaField(toolID)
}

func (luaSyntax) signature(expr string, ps []sigParam, more int) string {
	var b strings.Builder
	b.WriteString(expr)
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(luaKey(p.name))
		if !p.required {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		b.WriteString(p.typ)
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

func (luaSyntax) comment() string { return "--" }

func (luaSyntax) example(expr string, args []exampleArg) string {
	var b strings.Builder
	b.WriteString("local r = ")
	b.WriteString(expr)
	b.WriteByte('{')
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(luaKey(a.name))
		b.WriteString(" = ")
		b.WriteString(luaValue(a.value))
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
	return literal(v)
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
