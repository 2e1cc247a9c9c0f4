package rewrite

import (
	"strings"
	"unicode/utf8"
)

// scanner is one pass of a Detector over a text.
type scanner struct {
	d        *Detector
	s        string
	hint     string // extra context for phone numbers (a JSON key)
	literals bool   // also report token-shaped text as TypeToken
	out      []Span
	// localEnd is the end of the last email local-part run scanned: a
	// later word start inside it ends there too (no rescans).
	localEnd int
	// nextAt and nextColon cache the next '@' and ':' at or after the
	// position they were looked up from (len(s) when there is none), so
	// that most words skip the email and IPv6 checks at once.
	nextAt, nextColon int
	libChecks         int        // national numbers checked with libphonenumber
	oneLine           bool       // s has no '\n', so no table (NAME and ADDRESS skip the lookup)
	table             tableCache // the table row last asked about (table.go)
	rules             ruleScan   // the secret rule set (rules.go); rs nil when off
}

// next returns the index of the next c at or after i, using *cache.
func (sc *scanner) next(c byte, i int, cache *int) int {
	if *cache >= i {
		return *cache
	}
	k := strings.IndexByte(sc.s[i:], c)
	if k < 0 {
		*cache = len(sc.s)
	} else {
		*cache = i + k
	}
	return *cache
}

func (sc *scanner) emit(start, end int, typ string) {
	sc.out = append(sc.out, Span{Start: start, End: end, Type: typ})
}

// run walks the text once. At each anchor it tries the detectors that can
// start there; a match is emitted and skipped, otherwise the rest of the
// word is skipped, so every byte is looked at a small constant number of
// times.
func (sc *scanner) run() {
	s, d := sc.s, sc.d
	n := len(s)
	for i := 0; i < n; {
		c := s[i]
		if c >= 0x80 {
			// Punctuation beyond ASCII («, →, 、) separates words.
			if r, size := utf8.DecodeRuneInString(s[i:]); !wordRune(r) {
				i += size
				continue
			}
		}
		if class[c]&(cLetter|cDigit) != 0 || c >= 0x80 && d.on[kEmail] {
			if i > 0 && isWord(s[i-1]) && (s[i-1] < 0x80 || wordBefore(s, i)) {
				i++
				continue
			}
			if end := sc.word(i); end > i {
				i = end
				continue
			}
			if sc.rules.rs == nil {
				i = skipWord(s, i)
				continue
			}
			// Rule keywords start words or parts of words
			// ("MY_HEROKU_KEY").
			sc.rules.at(s, i)
			for i++; i < n && isWord(s[i]); i++ {
				if s[i-1] == '_' && isAlnum(s[i]) {
					sc.rules.at(s, i)
				}
			}
			continue
		}
		switch c {
		case '[':
			if sc.literals {
				if end := tokenEnd(s, i, d.types); end > 0 {
					sc.emit(i, end, TypeToken)
					i = end
					continue
				}
			}
		case '+':
			if d.on[kPhone] && (i == 0 || !isAlnum(s[i-1])) {
				if end := sc.intlPhone(i); end > 0 {
					sc.emit(i, end, TypePhone)
					i = end
					continue
				}
			}
		case '(':
			// "(+62) 812 3456 789": a country code in brackets.
			if d.on[kPhone] && i+1 < n && s[i+1] == '+' && (i == 0 || !isAlnum(s[i-1])) {
				if end := sc.intlParen(i); end > 0 {
					sc.emit(i, end, TypePhone)
					i = end
					continue
				}
			}
			// "(415) 555-0132" is a phone number; "(4111111111111111)"
			// is a value in brackets, read from the digit on.
			if d.on[kPhone] && i+1 < n && isDigit(s[i+1]) && (i == 0 || !isAlnum(s[i-1])) {
				found := len(sc.out)
				if end := sc.number(i); end > 0 && len(sc.out) > found {
					i = end
					continue
				}
			}
		case ':':
			// "::ffff:192.0.2.128", "::1:2:3": an IPv6 address that starts
			// with its "::", after a label's ':' too ("addr:::ffff:…").
			if d.on[kIP] && i+2 < n && s[i+1] == ':' && isHex(s[i+2]) && (i == 0 || !wordBefore(s, i) && (s[i-1] != ':' || i >= 2 && isLetter(s[i-2]))) {
				if end := ipv6End(s, i); end > 0 {
					sc.emit(i, end, TypeIPAddress)
					i = end
					continue
				}
			}
		case '-':
			if d.on[kSecret] && i+10 < n && s[i+1] == '-' {
				if end := pemEnd(s, i); end > 0 {
					sc.emit(i, end, TypeSecret)
					i = end
					continue
				}
			}
		}
		i++
	}
}

// word tries the detectors that start at a word start i (a letter or a
// digit); it returns the end of what it emitted, or -1.
func (sc *scanner) word(i int) int {
	s, d := sc.s, sc.d
	if at := sc.next('@', i, &sc.nextAt); d.on[kEmail] && at < len(s) && at-i <= 64 {
		j := sc.localEnd
		if i >= j {
			j = i
			for j < len(s) && class[s[j]]&cLocal != 0 {
				j++
			}
			sc.localEnd = j
		}
		if j < len(s) && s[j] == '@' {
			if end := emailEnd(s, i, j); end > 0 {
				if d.on[kName] && i > 0 && s[i-1] == '<' {
					sc.displayName(i - 1)
				}
				sc.emit(i, end, TypeEmail)
				return end
			}
		}
	}
	if d.on[kIP] && isHex(s[i]) && sc.next(':', i, &sc.nextColon)-i <= 4 {
		if end := ipv6End(s, i); end > 0 {
			sc.emit(i, end, TypeIPAddress)
			return end
		}
	}
	if c := s[i]; c >= 0x80 {
		if d.on[kName] || d.on[kAddr] {
			return sc.wideWord(i)
		}
		return -1
	}
	if isDigit(s[i]) {
		if d.on[kAddr] && i+2 < len(s) {
			if end := sc.cellValue(i); end > 0 {
				return end
			}
			if end := sc.streetNumberAt(i); end > 0 {
				return end
			}
		}
		if d.on[kSecret] {
			if end := telegramEnd(s, i); end > 0 {
				sc.emit(i, end, TypeSecret)
				return end
			}
			if i+35 <= len(s) && s[i+32] == '-' {
				if end := mailchimpEnd(s, i); end > 0 {
					sc.emit(i, end, TypeSecret)
					return end
				}
			}
		}
		if !numberBoundary(s, i) {
			return -1
		}
		return sc.number(i)
	}
	// Keys are runs of [A-Za-z0-9_-]: one starts where such a run does,
	// never after a '-' inside it (which would rescan the run).
	if d.on[kSecret] && (i == 0 || s[i-1] != '-') {
		if start, end := secretAt(s, i); end > 0 {
			sc.emit(start, end, TypeSecret)
			return end
		}
		if s[i] <= 'f' && i+35 <= len(s) && s[i+32] == '-' {
			if end := mailchimpEnd(s, i); end > 0 {
				sc.emit(i, end, TypeSecret)
				return end
			}
		}
	}
	if d.on[kIBAN] {
		if end := ibanEnd(s, i); end > 0 {
			sc.emit(i, end, TypeIBAN)
			return end
		}
	}
	// Lower-case words start no name or street line but in a table cell
	// ("ul. …" aside): most words stop here.
	if (d.on[kName] || d.on[kAddr]) && (isUpper(s[i]) || !sc.oneLine || s[i] == 'u' || s[i] == 'a') {
		return sc.letterWord(i)
	}
	return -1
}

// letterWord tries the NAME and ADDRESS forms that start at the ASCII
// letter s[i]: a label's value, a table cell, a street line, a name.
func (sc *scanner) letterWord(i int) int {
	s, d := sc.s, sc.d
	if isUpper(s[i]) {
		if end := sc.labelValue(i); end > 0 {
			return end
		}
	}
	if end := sc.cellValue(i); end > 0 {
		return end
	}
	if d.on[kAddr] {
		if end := sc.streetWordAt(i); end > 0 {
			return end
		}
	}
	if d.on[kName] && isUpper(s[i]) {
		return sc.nameAt(i)
	}
	return -1
}

// wideWord tries the NAME and ADDRESS forms that start at a non-ASCII
// letter s[i]: a table cell, a CJK street line, a name.
func (sc *scanner) wideWord(i int) int {
	d := sc.d
	if end := sc.cellValue(i); end > 0 {
		return end
	}
	if d.on[kAddr] {
		if end := sc.cjkAddressAt(i); end > 0 {
			return end
		}
		if end := sc.streetWordAt(i); end > 0 {
			return end
		}
	}
	if d.on[kName] && capitalAt(sc.s, i) {
		return sc.nameAt(i)
	}
	return -1
}

// numberBoundary: a number does not start inside a compound such as
// "v1.2", "ab-12", "1/2" or "12:30", or after '$' (an amount); it does
// start after a label's punctuation ("card:4111…", "SSN#536-…").
func numberBoundary(s string, i int) bool {
	if i == 0 {
		return true
	}
	switch s[i-1] {
	case '.', '-':
		return i < 2 || !isAlnum(s[i-2])
	case ',', '/':
		// "1,234,567" is one amount, "1/2" a fraction; "name,4111…"
		// is a field, "cards/4111…" a path segment.
		return i < 2 || !isDigit(s[i-2])
	case ':':
		return i < 2 || !isDigit(s[i-2])
	case '$':
		return false
	}
	return true
}

func skipWord(s string, i int) int {
	for i < len(s) && isWord(s[i]) {
		i++
	}
	return i
}

// tokenEnd returns the end of a token-shaped text at s[i] ("[TYPE_12]")
// whose type is in types, or -1.
func tokenEnd(s string, i int, types map[string]bool) int {
	j := i + 1
	for j < len(s) && (isUpper(s[j]) || isDigit(s[j]) || s[j] == '_') && j-i < 64 {
		j++
	}
	// s[i+1:j] is TYPE_digits, the type ending at the last '_'.
	if j >= len(s) || s[j] != ']' || j-i < 4 {
		return -1
	}
	k := j - 1
	for k > i && isDigit(s[k]) {
		k--
	}
	if k == j-1 || s[k] != '_' || !isUpper(s[i+1]) {
		return -1
	}
	if !types[s[i+1:k]] {
		return -1
	}
	return j + 1
}
