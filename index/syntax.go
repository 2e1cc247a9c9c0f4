package index

import "github.com/toolfold/toolfold/sandbox"

// syntaxFor is the call syntax of script language lang (a name or an
// alias, sandbox.LookupLanguage); an unknown language renders as Lua.
// Every language's syntax is part of its sandbox.Language, so a language
// registered there is rendered here too.
func syntaxFor(lang string) sandbox.Syntax {
	if l, ok := sandbox.LookupLanguage(lang); ok {
		return l.Syntax
	}
	l, _ := sandbox.LookupLanguage("lua")
	return l.Syntax
}
