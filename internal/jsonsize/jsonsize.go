// Package jsonsize measures a value's JSON encoding without encoding it:
// the size of a tool result, checked on the hot path of every call.
package jsonsize

import (
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// Size is the length of v's encoding/json encoding, computed without
// encoding it, for the decoded values a result holds (maps, slices,
// strings, numbers, booleans, null, raw JSON); other types are marshalled.
// It stops early once the size passes limit and then returns a value over
// limit (math.MaxInt: the whole size).
func Size(v any, limit int) int {
	n := 0
	sizeOf(v, &n, limit)
	return n
}

func sizeOf(v any, n *int, limit int) {
	if *n > limit {
		return
	}
	switch v := v.(type) {
	case nil:
		*n += 4
	case bool:
		if v {
			*n += 4
		} else {
			*n += 5
		}
	case string:
		*n += stringSize(v)
	case float64:
		*n += floatSize(v)
	case json.Number:
		*n += len(v)
	case json.RawMessage:
		*n += len(v) // json.Marshal compacts it: at most this
	case map[string]any:
		*n += 2 + max(len(v)-1, 0) // braces, commas
		for k, e := range v {
			*n += stringSize(k) + 1 // key, colon
			if sizeOf(e, n, limit); *n > limit {
				return
			}
		}
	case []any:
		*n += 2 + max(len(v)-1, 0)
		for _, e := range v {
			if sizeOf(e, n, limit); *n > limit {
				return
			}
		}
	default:
		b, _ := json.Marshal(v)
		*n += len(b)
	}
}

// stringSize is the length of s as encoding/json writes it: quoted, with
// HTML-safe escapes and invalid UTF-8 replaced.
func stringSize(s string) int {
	n := 2
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\b' || b == '\f' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20 || b == '<' || b == '>' || b == '&':
				n += 6 // \u00XX
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6 // \ufffd
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// floatSize is the length of f as encoding/json writes it.
func floatSize(f float64) int {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0 // json.Marshal fails on these: nothing is sent
	}
	var buf [32]byte
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(buf[:0], f, format, -1, 64)
	if format == 'e' {
		// encoding/json writes e-07 as e-7.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			return n - 1
		}
	}
	return len(b)
}
