// Package shorten cuts a JSON value down to what a person or a log line
// can take in, keeping its shape: long strings are cut, long lists and
// objects show their first items and how many more there are, deep
// values are elided. The result is for reading, not for parsing again.
//
// Text cuts the audit's error messages and, past their size cap, its
// arguments. Approval forms and audit records show a call's arguments
// whole (issue 28: a cut form hid an eleventh recipient), so JSON is for
// places that only summarize.
package shorten

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits bound what JSON keeps.
type Limits struct {
	String int // runes kept of a string
	Items  int // items kept of a list, keys of an object
	Depth  int // nesting shown; deeper values become {…} or […]
	Total  int // bytes of the whole result
}

// Default are the limits of audit records and approval forms.
var Default = Limits{String: 80, Items: 10, Depth: 4, Total: 1024}

// JSON shortens the JSON value raw within l (zero fields take Default's).
// Text that is not JSON is cut as text.
func JSON(raw []byte, l Limits) string {
	l = l.withDefaults()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	w := &walker{dec: dec, l: l}
	err := w.value(0)
	if err == nil {
		if _, err = dec.Token(); err == io.EOF {
			err = nil
		} else if err == nil {
			err = errors.New("trailing data")
		}
	}
	if err != nil {
		return Text(string(raw), l.Total)
	}
	return Text(w.b.String(), l.Total)
}

// Text cuts s to at most max bytes (on a rune boundary), saying how much
// was cut: "abc…(+120 bytes)".
func Text(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(+%d bytes)", s[:cut], len(s)-cut)
}

func (l Limits) withDefaults() Limits {
	if l.String <= 0 {
		l.String = Default.String
	}
	if l.Items <= 0 {
		l.Items = Default.Items
	}
	if l.Depth <= 0 {
		l.Depth = Default.Depth
	}
	if l.Total <= 0 {
		l.Total = Default.Total
	}
	return l
}

type walker struct {
	dec *json.Decoder
	l   Limits
	b   strings.Builder
}

func (w *walker) value(depth int) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= w.l.Depth {
			w.b.WriteString(map[json.Delim]string{'{': "{…}", '[': "[…]"}[t])
			return w.skip()
		}
		return w.container(t, depth)
	case string:
		w.str(t)
	case json.Number:
		w.b.WriteString(t.String())
	case bool:
		w.b.WriteString(strconv.FormatBool(t))
	case nil:
		w.b.WriteString("null")
	}
	return nil
}

// container writes an object or list whose opening delim was read.
func (w *walker) container(open json.Delim, depth int) error {
	w.b.WriteRune(rune(open))
	n, skipped := 0, 0
	for w.dec.More() {
		var key string
		if open == '{' {
			tok, err := w.dec.Token()
			if err != nil {
				return err
			}
			key, _ = tok.(string)
		}
		if n >= w.l.Items {
			if err := w.skipValue(); err != nil {
				return err
			}
			skipped++
			continue
		}
		if n > 0 {
			w.b.WriteByte(',')
		}
		if open == '{' {
			w.str(key)
			w.b.WriteByte(':')
		}
		if err := w.value(depth + 1); err != nil {
			return err
		}
		n++
	}
	if skipped > 0 {
		fmt.Fprintf(&w.b, ",…+%d", skipped)
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	w.b.WriteString(fmt.Sprint(tok))
	return nil
}

// str writes a JSON string, cut to the rune limit.
func (w *walker) str(s string) {
	cut := ""
	if n := utf8.RuneCountInString(s); n > w.l.String {
		runes := []rune(s)
		s, cut = string(runes[:w.l.String]), fmt.Sprintf("…(+%d)", n-w.l.String)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s + cut)
	w.b.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// skipValue reads one value and drops it.
func (w *walker) skipValue() error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return w.skip()
	}
	return nil
}

// skip drops the rest of a container whose opening delim was read.
func (w *walker) skip() error {
	for level := 1; level > 0; {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			level++
		case json.Delim('}'), json.Delim(']'):
			level--
		}
	}
	return nil
}
