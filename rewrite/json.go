package rewrite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// TokenizeJSON tokenizes every string of a JSON text, object keys
// included, at any depth; a number that is a value (a card number written
// as a number) becomes a string holding its token. The result is valid
// JSON when the input is; malformed input is an error (tokenize it as text).
//
// Keys are tokenized too: objects keyed by email or IP address are
// common, and a key only changes when a detector fires on it.
func (v *Vault) TokenizeJSON(raw []byte) ([]byte, error) {
	return v.tokenizeJSON(raw, true)
}

// tokenizeJSON is TokenizeJSON; without literals, text shaped like a token
// is left as it is.
func (v *Vault) tokenizeJSON(raw []byte, literals bool) ([]byte, error) {
	spans := make([]Span, 0, 16)
	return walkJSON(raw, func(out *bytes.Buffer, lit string, escaped bool, hint string) error {
		s := lit[1 : len(lit)-1]
		if escaped {
			u, err := unquote(lit)
			if err != nil {
				return err
			}
			s = u
		}
		t := v.tokenizeSpans(s, hint, &spans, literals)
		if t == s {
			out.WriteString(lit)
			return nil
		}
		if escaped {
			writeJSONString(out, t)
		} else {
			out.WriteByte('"')
			out.WriteString(t)
			out.WriteByte('"')
		}
		return nil
	}, func(out *bytes.Buffer, num string, hint string) {
		if t := v.tokenizeSpans(num, hint, &spans, literals); t != num {
			writeJSONString(out, t)
			return
		}
		out.WriteString(num)
	})
}

// DetokenizeJSON restores this vault's tokens in every string of a JSON
// text, keys included, at any depth. Other bytes are copied unchanged.
func (v *Vault) DetokenizeJSON(raw []byte) ([]byte, error) {
	if bytes.IndexByte(raw, '[') < 0 {
		return raw, nil
	}
	return walkJSON(raw, func(out *bytes.Buffer, lit string, escaped bool, _ string) error {
		body := lit[1 : len(lit)-1]
		if v.Detokenize(body) == body {
			out.WriteString(lit)
			return nil
		}
		// Re-encode only the restored values: the rest is already JSON.
		out.WriteByte('"')
		v.detokenizeInto(out, body)
		out.WriteByte('"')
		return nil
	}, func(out *bytes.Buffer, num string, _ string) { out.WriteString(num) })
}

// detokenizeInto writes body (the inside of a JSON string) with each known
// token replaced by its value, JSON-escaped.
func (v *Vault) detokenizeInto(out *bytes.Buffer, body string) {
	now := v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	last := 0
	for i := strings.IndexByte(body, '['); i >= 0 && i < len(body); i = nextBracket(body, i+1) {
		end := tokenShape(body, i)
		if end < 0 {
			continue
		}
		val, ok := v.lookup(body[i:end], now)
		if !ok {
			continue
		}
		out.WriteString(body[last:i])
		var b bytes.Buffer
		writeJSONString(&b, val)
		out.Write(b.Bytes()[1 : b.Len()-1])
		last = end
		i = end - 1
	}
	out.WriteString(body[last:])
}

// unquote decodes a JSON string literal.
func unquote(lit string) (string, error) {
	var u string
	err := json.Unmarshal([]byte(lit), &u)
	return u, err
}

func writeJSONString(out *bytes.Buffer, s string) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)           // a string always encodes
	out.Truncate(out.Len() - 1) // Encode's newline
}

// walkJSON copies a JSON text, handing each string literal and each number
// to a callback. hint is the key the value sits under (the last key seen).
func walkJSON(rawb []byte, str func(out *bytes.Buffer, lit string, escaped bool, hint string) error,
	num func(out *bytes.Buffer, num string, hint string)) ([]byte, error) {
	raw := string(rawb) // one copy; every literal below is a substring of it
	var out bytes.Buffer
	out.Grow(len(raw) + len(raw)/16)
	hint := ""
	var st jsonStack
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '{' || c == '[':
			st.push(hint, c == '{', i)
			out.WriteByte(c)
			i++
		case c == '}' || c == ']':
			hint = st.pop()
			out.WriteByte(c)
			i++
		case c == '"':
			j, escaped, err := stringEnd(raw, i)
			if err != nil {
				return nil, err
			}
			lit := raw[i:j]
			isKey := nextNonSpace(raw, j) == ':'
			h := hint
			if isKey {
				h = ""
			} else if h == "name" || h == "Name" {
				h = st.nameHint(raw, i)
			}
			if err := str(&out, lit, escaped, h); err != nil {
				return nil, err
			}
			if isKey {
				hint = lit[1 : len(lit)-1]
			}
			i = j
		case c == '-' || isDigit(c):
			j := i + 1
			for j < len(raw) && (isDigit(raw[j]) || raw[j] == '.' || raw[j] == 'e' || raw[j] == 'E' || raw[j] == '+' || raw[j] == '-') {
				j++
			}
			num(&out, raw[i:j], hint)
			i = j
		default:
			out.WriteByte(c)
			i++
		}
	}
	return out.Bytes(), nil
}

// stringEnd returns the end of the string literal at raw[i] (after its
// closing quote) and whether it holds escapes.
func stringEnd(raw string, i int) (int, bool, error) {
	escaped := false
	for j := i + 1; j < len(raw); {
		k := strings.IndexByte(raw[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		// Escapes before the quote: an odd run of backslashes escapes it.
		if b := strings.IndexByte(raw[j:q], '\\'); b >= 0 {
			escaped = true
		}
		n := 0
		for p := q - 1; p > i && raw[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1, escaped, nil
		}
		j = q + 1
	}
	return 0, false, fmt.Errorf("unterminated JSON string at byte %d", i)
}

func nextNonSpace(raw string, j int) byte {
	for ; j < len(raw); j++ {
		switch raw[j] {
		case ' ', '\t', '\n', '\r':
			continue
		}
		return raw[j]
	}
	return 0
}

// TokenizeValue tokenizes a decoded JSON value (maps, slices, strings,
// numbers, json.RawMessage) into a new value; the input is not modified.
func (v *Vault) TokenizeValue(x any) any {
	return v.tokenizeValue(x, "")
}

func (v *Vault) tokenizeValue(x any, hint string) any {
	switch x := x.(type) {
	case string:
		return v.tokenize(x, hint)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			h := k
			if k == "name" || k == "Name" {
				h = valueHint(x, hint)
			}
			m[v.tokenize(k, "")] = v.tokenizeValue(e, h)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = v.tokenizeValue(e, hint)
		}
		return s
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e19 {
			n := strconv.FormatFloat(x, 'f', -1, 64)
			if t := v.tokenize(n, hint); t != n {
				return t
			}
		}
		return x
	case json.Number:
		if t := v.tokenize(string(x), hint); t != string(x) {
			return t
		}
		return x
	case json.RawMessage:
		if out, err := v.TokenizeJSON(x); err == nil {
			return json.RawMessage(out)
		}
		// Not JSON: hide it whole rather than let it through.
		b, _ := json.Marshal(v.Tokenize(string(x)))
		return json.RawMessage(b)
	case nil, bool:
		return x
	}
	// Anything else (a typed struct): through JSON.
	b, err := json.Marshal(x)
	if err != nil {
		return nil
	}
	out, err := v.TokenizeJSON(b)
	if err != nil {
		return nil
	}
	var y any
	if json.Unmarshal(out, &y) != nil {
		return nil
	}
	return y
}

// DetokenizeValue restores tokens in a decoded JSON value (maps, slices,
// strings, json.RawMessage) into a new value.
func (v *Vault) DetokenizeValue(x any) any {
	switch x := x.(type) {
	case string:
		return v.Detokenize(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[v.Detokenize(k)] = v.DetokenizeValue(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = v.DetokenizeValue(e)
		}
		return s
	case json.RawMessage:
		if out, err := v.DetokenizeJSON(x); err == nil {
			return json.RawMessage(out)
		}
		return x
	}
	return x
}
