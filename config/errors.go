package config

import (
	"fmt"
	"sort"
	"strings"
)

// Error is one problem in a config file, positioned. Line and Col are
// 1-based; either is 0 when unknown (a file-level problem, or a YAML syntax
// error, which yaml.v3 reports by line only). Path names the offending value
// from the top of the document, like "upstreams.github.command" or
// "upstreams.fs.args[2]"; it is empty for syntax errors.
//
// Messages quote only text from the file, never the value of an
// environment variable.
type Error struct {
	File      string
	Line, Col int
	Path      string
	Msg       string
}

// Error renders "proxy.yaml:14:7: upstreams.github.command: required for stdio".
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is every problem found in one file, sorted by position. Parse and
// Load return it (as an error) when the file is not valid; use errors.As to
// get at the positions.
type Errors []*Error

// Error joins the errors one per line.
func (es Errors) Error() string {
	lines := make([]string, len(es))
	for i, e := range es {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// sortErrors orders errors by position, keeping discovery order for ties.
func sortErrors(es []*Error) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Line != es[j].Line {
			return es[i].Line < es[j].Line
		}
		return es[i].Col < es[j].Col
	})
}
