package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

var bom = []byte("\xef\xbb\xbf")

// parseDocument parses data as JSON (with comments) when it starts with
// "{", else as YAML, and returns the top node, or nil for an empty file.
func parseDocument(data []byte) (*yaml.Node, *Error) {
	data = bytes.TrimPrefix(data, bom)
	if looksLikeJSON(data) {
		doc, jerr := parseJSON(data)
		if jerr == nil {
			return doc.Content[0], nil
		}
		if root, yerr := parseYAML(data); yerr == nil { // YAML flow style, like {upstreams: …}
			return root, nil
		}
		return nil, jerr
	}
	return parseYAML(data)
}

// parseYAML parses one YAML document. yaml.v3 reports syntax errors by
// line only.
func parseYAML(data []byte) (root *yaml.Node, e *Error) {
	defer func() {
		if r := recover(); r != nil { // yaml.v3 has panicked on hostile input before
			root, e = nil, &Error{Msg: fmt.Sprintf("invalid YAML: %v", r)}
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, yamlError(err, data)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil && len(extra.Content) > 0:
		return nil, &Error{Line: extra.Line, Col: extra.Column, Msg: `a second YAML document: a config is one document; remove the "---" and what follows, or merge them`}
	case err != nil && !errors.Is(err, io.EOF):
		return nil, yamlError(err, data)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return resolve(doc.Content[0]), nil
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlParserErrors are the messages of yaml.v3's parser (not its scanner),
// which it reports with a 0-based line.
var yamlParserErrors = []string{"did not find expected <", "did not find expected node content",
	"did not find expected key", "did not find expected '-'", "did not find expected ','",
	"found undefined tag handle", "found duplicate %", "found incompatible YAML document"}

func yamlError(err error, data []byte) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	e := &Error{Msg: "invalid YAML: " + msg}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "invalid YAML: " + m[2]
		for _, p := range yamlParserErrors {
			if strings.HasPrefix(m[2], p) {
				e.Line++
				break
			}
		}
	}
	if l := firstBadLine(data); l > e.Line {
		e.Line = l
	}
	if strings.Contains(msg, "did not find expected alphabetic or numeric character") && startsWithStar(data, e.Line) {
		e.Msg += ` (a value that starts with "*" reads as a YAML alias: quote it, like match: "*.send_*")`
	}
	if (strings.Contains(msg, "cannot start any token") || strings.Contains(msg, "tab character")) && bytes.Contains(data, []byte("\t")) {
		e.Msg += " (tabs cannot indent YAML: use spaces)"
	}
	return e
}

// maxBadLineSearch bounds firstBadLine's quadratic search; configs are far
// shorter.
const maxBadLineSearch = 1000

// firstBadLine returns the line (1-based) just after the longest run of
// leading lines that still parses, or 0 when data is too long to search.
// yaml.v3 reports a parser error at the line of the mapping or sequence it was
// inside (a bad indent on line 4 under a key on line 2 says line 2); the
// longest prefix that parses ends just before the line that broke it.
func firstBadLine(data []byte) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > maxBadLineSearch {
		return 0
	}
	for k := len(lines) - 1; k > 0; k-- {
		if parses(bytes.Join(lines[:k], nil)) {
			return k + 1
		}
	}
	return 0
}

// parses reports whether data is well-formed YAML.
func parses(data []byte) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var n yaml.Node
	return yaml.Unmarshal(data, &n) == nil
}

// startsWithStar reports whether line n (1-based) of data has a value
// that starts with "*", as an unquoted glob does.
func startsWithStar(data []byte, n int) bool {
	lines := bytes.Split(data, []byte("\n"))
	if n < 1 || n > len(lines) {
		return false
	}
	return starValue.Match(lines[n-1])
}

var starValue = regexp.MustCompile(`(^|[:\[{,-])\s*\*`)
