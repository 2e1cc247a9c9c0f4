package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// Client files are JSON, often with comments and trailing commas (VS Code
// and Cursor accept both). yaml.v3 reads most JSON but not all of it (it
// rejects the escape "\/" and tab indentation), so a file that starts with
// "{" is read by encoding/json into the same yaml.Node tree the YAML path
// produces, with the same line and column positions.

// looksLikeJSON reports whether the first thing in data, after blanks and
// JSONC comments, is "{".
func looksLikeJSON(data []byte) bool {
	clean := blankComments(data)
	trimmed := bytes.TrimLeft(clean, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// parseJSON reads JSON with comments and trailing commas into a document
// node. The error, if any, is positioned.
func parseJSON(data []byte) (*yaml.Node, *Error) {
	clean := blankTrailingCommas(blankComments(data))
	p := &jsonParser{data: clean, dec: json.NewDecoder(bytes.NewReader(clean))}
	p.dec.UseNumber()
	root, err := p.value(0)
	if err == nil {
		if _, extra := p.dec.Token(); extra != io.EOF {
			err = p.errAt(p.start(), "unexpected text after the top-level JSON object")
		}
	}
	if err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Line: 1, Column: 1, Content: []*yaml.Node{root}}, nil
}

type jsonParser struct {
	data []byte
	dec  *json.Decoder
}

const maxJSONDepth = 200

// value reads one JSON value and returns it as a yaml node.
func (p *jsonParser) value(depth int) (*yaml.Node, *Error) {
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.syntax(err)
	}
	n := &yaml.Node{Kind: yaml.ScalarNode}
	n.Line, n.Column = position(p.data, off)
	switch t := tok.(type) {
	case json.Delim:
		if t != '{' && t != '[' {
			return nil, p.errAt(off, fmt.Sprintf("unexpected %q", string(t)))
		}
		if depth >= maxJSONDepth {
			return nil, p.errAt(off, "JSON nested too deeply")
		}
		return p.collection(n, t, depth+1)
	case string:
		n.Tag, n.Value, n.Style = "!!str", t, yaml.DoubleQuotedStyle
	case json.Number:
		n.Tag, n.Value = "!!int", t.String()
		if bytes.ContainsAny([]byte(n.Value), ".eE") {
			n.Tag = "!!float"
		}
	case bool:
		n.Tag, n.Value = "!!bool", fmt.Sprint(t)
	case nil:
		n.Tag, n.Value = "!!null", "null"
	}
	return n, nil
}

// collection reads the members of an object or array whose opening
// delimiter was just read.
func (p *jsonParser) collection(n *yaml.Node, open json.Delim, depth int) (*yaml.Node, *Error) {
	n.Kind, n.Tag, n.Style = yaml.SequenceNode, "!!seq", yaml.FlowStyle
	if open == '{' {
		n.Kind, n.Tag = yaml.MappingNode, "!!map"
	}
	for p.dec.More() {
		if open == '{' {
			key, err := p.value(depth) // the decoder guarantees a string here
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, key)
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		n.Content = append(n.Content, v)
	}
	if _, err := p.dec.Token(); err != nil { // the closing delimiter
		return nil, p.syntax(err)
	}
	return n, nil
}

// start is the offset of the next token: past blanks and the separators
// the decoder consumes on its own.
func (p *jsonParser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) && bytes.IndexByte([]byte(" \t\r\n,:"), p.data[off]) >= 0 {
		off++
	}
	return off
}

func (p *jsonParser) syntax(err error) *Error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		off := int(se.Offset)
		return p.errAt(off, "invalid JSON: "+se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.errAt(len(p.data), "invalid JSON: unexpected end of file")
	}
	return p.errAt(p.start(), "invalid JSON: "+err.Error())
}

func (p *jsonParser) errAt(off int, msg string) *Error {
	line, col := position(p.data, off)
	return &Error{Line: line, Col: col, Msg: msg}
}

// position converts a byte offset to a 1-based line and column, counting
// columns in characters as yaml.v3 does.
func position(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, utf8.RuneCount(before[lineStart:]) + 1
}

// blankComments returns a copy of data with // and /* */ comments outside
// strings replaced by spaces (newlines kept), so offsets do not move.
func blankComments(data []byte) []byte {
	out := bytes.Clone(data)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := bytes.Index(out[i+2:], []byte("*/"))
			stop := len(out)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			i--
		}
	}
	return out
}

// blankTrailingCommas replaces a comma followed (past blanks) by "}" or "]"
// with a space. data must already be free of comments.
func blankTrailingCommas(data []byte) []byte {
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == ',':
			rest := bytes.TrimLeft(data[i+1:], " \t\r\n")
			if len(rest) > 0 && (rest[0] == '}' || rest[0] == ']') {
				data[i] = ' '
			}
		}
	}
	return data
}

// StandardJSON returns data, a client's JSON with comments and trailing
// commas (JSONC, as VS Code writes it), as standard JSON: comments and
// trailing commas become blanks, so offsets and line numbers do not move.
func StandardJSON(data []byte) []byte {
	return blankTrailingCommas(blankComments(data))
}
