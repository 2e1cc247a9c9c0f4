package codeapi

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/toolfold/toolfold/index"
)

// isIdent reports whether s is an identifier in every language here.
func isIdent(s string) bool { return s != "" && index.ScriptIdent(s) == s }

// camel is ident in camelCase ("create_entities" → "createEntities"), or
// PascalCase with upper. Leading underscores stay.
func camel(ident string, upper bool) string {
	var b strings.Builder
	lead := len(ident) - len(strings.TrimLeft(ident, "_"))
	b.WriteString(ident[:lead])
	next := upper
	for _, r := range ident[lead:] {
		if r == '_' {
			next = true
			continue
		}
		if next {
			r = unicode.ToUpper(r)
			next = false
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return ident
	}
	return b.String()
}

// reservedPy are the names a generated Python function uses itself.
var reservedPy = map[string]bool{"_call": true, "_args": true}

// uniqueNames gives each field a distinct name made by name, taking a
// numbered suffix on a collision.
func uniqueNames(fs []field, name func(string) string) []string {
	out := make([]string, len(fs))
	taken := map[string]bool{}
	for k := range reservedPy {
		taken[k] = true
	}
	for i, f := range fs {
		n := name(f.name)
		base := n
		for j := 2; taken[n]; j++ {
			n = base + "_" + strconv.Itoa(j)
		}
		taken[n] = true
		out[i] = n
	}
	return out
}

// oneLine collapses white space runs to single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// firstLine is s up to its first newline.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
