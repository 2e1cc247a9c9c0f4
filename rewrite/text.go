package rewrite

import (
	"strings"
	"sync"
)

// spanPool recycles span slices: most strings have no value at all.
var spanPool = sync.Pool{New: func() any { s := make([]Span, 0, 16); return &s }}

// Tokenize replaces every value found in s by its token. Text already
// shaped like a token of a type this vault can give is vaulted too (as
// TOKEN), so that Detokenize gives it back verbatim.
func (v *Vault) Tokenize(s string) string {
	if v == nil {
		return s
	}
	return v.tokenize(s, "")
}

// tokenize is Tokenize with a context hint (the JSON key s sits under).
func (v *Vault) tokenize(s, hint string) string {
	buf := spanPool.Get().(*[]Span)
	out := v.tokenizeWith(s, hint, buf)
	if cap(*buf) <= 1024 {
		spanPool.Put(buf)
	}
	return out
}

// tokenizeWith is tokenize with a span buffer of the caller's, reused.
func (v *Vault) tokenizeWith(s, hint string, buf *[]Span) string {
	return v.tokenizeSpans(s, hint, buf, true)
}

// tokenizeSpans is tokenizeWith; without literals, text shaped like a
// token is left as it is (ShowJSON).
func (v *Vault) tokenizeSpans(s, hint string, buf *[]Span, literals bool) string {
	spans := v.det.find(s, hint, (*buf)[:0], literals)
	*buf = spans[:0]
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8*len(spans))
	now := v.now()
	v.mu.Lock()
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp.Start])
		b.WriteString(v.token(sp.Type, s[sp.Start:sp.End], now))
		last = sp.End
	}
	v.mu.Unlock()
	b.WriteString(s[last:])
	return b.String()
}

// Detokenize puts back the value of every token of this vault in s.
// Unknown tokens (another session's, expired, made up) stay as they are.
func (v *Vault) Detokenize(s string) string {
	i := strings.IndexByte(s, '[')
	if v == nil || i < 0 {
		return s
	}
	var b strings.Builder
	now := v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	last := 0
	for ; i >= 0 && i < len(s); i = nextBracket(s, i+1) {
		end := tokenShape(s, i)
		if end < 0 {
			continue
		}
		val, ok := v.lookup(s[i:end], now)
		if !ok {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:i])
		b.WriteString(val)
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func nextBracket(s string, from int) int {
	if from >= len(s) {
		return -1
	}
	k := strings.IndexByte(s[from:], '[')
	if k < 0 {
		return -1
	}
	return from + k
}

// tokenShape returns the end of "[TYPE_n]" at s[i], or -1.
func tokenShape(s string, i int) int {
	j := i + 1
	for j < len(s) && j-i < 64 && (isUpper(s[j]) || isDigit(s[j]) || s[j] == '_') {
		j++
	}
	if j >= len(s) || s[j] != ']' || j-i < 4 || !isUpper(s[i+1]) || !isDigit(s[j-1]) {
		return -1
	}
	return j + 1
}
