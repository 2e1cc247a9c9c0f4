package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// expander resolves ${...} references in the fields that allow them:
// command, args, env values, cwd, url, header values, http.bearer_token,
// telemetry.endpoint and telemetry.headers values.
//
//	${NAME}          the variable; an error when it is not set
//	${NAME:-word}    the variable, or word when it is unset or empty
//	${NAME-word}     the variable, or word when it is unset
//	${env:NAME}      same as ${NAME} (the spelling VS Code and Cursor use)
//	$$               a literal "$"
//
// word may itself contain references. Any other "$" is kept as is, so
// "$HOME" is not expanded: write "${HOME}". Values are inserted verbatim,
// never expanded again.
//
// In a client's file (mcpServers, servers) the predefined variables of
// VS Code and Cursor are understood too: ${userHome}, ${workspaceFolder},
// ${workspaceFolderBasename}, ${pathSeparator} and ${/}.
type expander struct {
	lookup    func(string) (string, bool)
	client    bool   // recognise VS Code's predefined variables
	workspace string // the value of ${workspaceFolder}
	depth     int    // of defaults being expanded
}

// maxNesting bounds references nested in defaults: ${A:-${B:-${C}}} is 3.
const maxNesting = 8

// expand returns s with its references resolved, and a message per problem.
// Messages name variables but never contain their values.
func (x *expander) expand(s string) (string, []string) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	var errs []string
	for i := 0; i < len(s); {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			i++
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i += 2
		case '{':
			end := closingBrace(s, i+2)
			if end < 0 {
				errs = append(errs, `unterminated "${": close it with "}", or write "$${" for a literal "${"`)
				return b.String() + s[i:], errs
			}
			v, e := x.ref(s[i+2 : end])
			b.WriteString(v)
			errs = append(errs, e...)
			i = end + 1
		default:
			b.WriteByte('$')
			i++
		}
	}
	return b.String(), errs
}

// closingBrace returns the index of the "}" that closes a "${" whose body
// starts at i, allowing nested references in a default; -1 if none.
func closingBrace(s string, i int) int {
	depth := 1
	for ; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && (s[i+1] == '$' || s[i+1] == '{'):
			if s[i+1] == '{' {
				depth++
			}
			i++
		case s[i] == '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// ref resolves the body of one "${...}".
func (x *expander) ref(expr string) (string, []string) {
	if x.client {
		if v, errs, ok := x.predefined(expr); ok {
			return v, errs
		}
	}
	body := strings.TrimPrefix(expr, "env:")
	n := identLen(body)
	name, rest := body[:n], body[n:]
	if n == 0 || !(rest == "" || rest[0] == '-' || strings.HasPrefix(rest, ":-")) {
		return "", []string{fmt.Sprintf(`invalid reference "${%s}": write ${NAME} or ${NAME:-default} (or "$$" for a literal "$")`, expr)}
	}
	v, set := x.lookup(name)
	switch {
	case rest == "":
		if !set {
			return "", []string{fmt.Sprintf("environment variable %s is not set; set it or write ${%s:-default}", name, name)}
		}
		return v, nil
	case strings.HasPrefix(rest, ":-"):
		if set && v != "" {
			return v, nil
		}
		return x.fallback(rest[2:])
	default: // "-word"
		if set {
			return v, nil
		}
		return x.fallback(rest[1:])
	}
}

// fallback expands the default of a reference.
func (x *expander) fallback(word string) (string, []string) {
	if x.depth >= maxNesting {
		return "", []string{"references nested too deeply in defaults"}
	}
	x.depth++
	defer func() { x.depth-- }()
	return x.expand(word)
}

// predefined resolves VS Code's and Cursor's own variables; ok is false when
// expr is not one of them.
func (x *expander) predefined(expr string) (v string, errs []string, ok bool) {
	switch expr {
	case "userHome":
		home, found := homeDir(x.lookup)
		if !found {
			return "", []string{"cannot resolve ${userHome}: HOME is not set"}, true
		}
		return home, nil, true
	case "workspaceFolder":
		return x.workspace, nil, true
	case "workspaceFolderBasename":
		return filepath.Base(x.workspace), nil, true
	case "pathSeparator", "/":
		return string(os.PathSeparator), nil, true
	}
	prefix, after, _ := strings.Cut(expr, ":")
	if strings.HasPrefix(after, "-") { // ${command:-default}: a variable with a default
		return "", nil, false
	}
	switch prefix {
	case "input":
		return "", []string{fmt.Sprintf("${%s} asks VS Code to prompt for a value, and toolfold cannot prompt: put the value in an environment variable and write ${env:NAME}", expr)}, true
	case "config", "command":
		return "", []string{fmt.Sprintf("${%s}: toolfold does not support VS Code's %q variables; use an environment variable and write ${env:NAME}", expr, prefix+":")}, true
	}
	return "", nil, false
}

// identLen is the length of the environment variable name at the start of
// s: a letter or '_' followed by letters, digits and '_'.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return i
		}
	}
	return len(s)
}

// homeDir is $HOME (or %USERPROFILE%) through lookup.
func homeDir(lookup func(string) (string, bool)) (string, bool) {
	for _, name := range []string{"HOME", "USERPROFILE"} {
		if v, ok := lookup(name); ok && v != "" {
			return v, true
		}
	}
	return "", false
}
