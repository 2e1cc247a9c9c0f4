package rewrite

import (
	"strings"
	"unicode/utf8"
)

// emailEnd validates an address whose local part is s[i:at] and returns
// its end, or -1. The domain needs two or more labels and an alphabetic
// top-level label; a trailing '.' (end of a sentence) is left out.
func emailEnd(s string, i, at int) int {
	if at == i || at-i > 64 || s[i] == '.' || s[at-1] == '.' || s[i] == '\'' || s[at-1] == '\'' ||
		strings.Contains(s[i:at], "..") {
		return -1
	}
	// "ssh://git@host/…": a URL's user, not an address. Nor is the tail
	// of a local part refused as a whole ("er@…" of "us..er@…").
	if i >= 3 && s[i-3:i] == "://" || i >= 2 && s[i-1] == '.' && class[s[i-2]]&cLocal != 0 {
		return -1
	}
	// "icon@2x.png": an image asset's scale, not a domain.
	if k := at + 1; k+2 < len(s) && isDigit(s[k]) {
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k+1 < len(s) && s[k] == 'x' && s[k+1] == '.' {
			return -1
		}
	}
	j := at + 1
	labels, labelStart, lastLabel := 0, j, -1
	for j <= len(s) {
		if j < len(s) && (isAlnum(s[j]) || s[j] == '-') {
			j++
			continue
		}
		if j < len(s) && s[j] >= 0x80 {
			// A letter of any script ("bücher.de"); not "»" after it.
			if r, size := utf8.DecodeRuneInString(s[j:]); wordRune(r) {
				j += size
				continue
			}
		}
		if j == labelStart || s[labelStart] == '-' || s[j-1] == '-' {
			break
		}
		labels++
		lastLabel = labelStart
		if j < len(s) && s[j] == '.' && j+1 < len(s) && (isAlnum(s[j+1]) || s[j+1] >= 0x80) {
			j++
			labelStart = j
			continue
		}
		break
	}
	if labels < 2 {
		return -1
	}
	end := j
	if end-at > 255 {
		return -1
	}
	for k := lastLabel; k < end; k++ {
		if !isLetter(s[k]) && s[k] < 0x80 {
			return -1
		}
	}
	if end-lastLabel < 2 || (end < len(s) && wordAt(s, end)) {
		return -1
	}
	// "git@github.com:org/repo.git" is an SSH remote, not an address.
	if end+1 < len(s) && s[end] == ':' && (isLetter(s[end+1]) || s[end+1] == '/' || s[end+1] == '~') {
		return -1
	}
	return end
}

// ipv6End parses an IPv6 address at s[i]: eight groups, or fewer with one
// "::" and at least three groups (so "a::b" in code is not an address).
// Times ("12:30:45") and MAC addresses (six groups) do not qualify.
func ipv6End(s string, i int) int {
	// Cheap reject: a ':' must come within the first five bytes.
	k := i
	for k < len(s) && k-i < 5 && isHex(s[k]) {
		k++
	}
	if k >= len(s) || s[k] != ':' {
		return -1
	}
	groups, double, j, first := 0, false, i, ""
	for groups < 8 {
		g := j
		for j < len(s) && j-g < 5 && isHex(s[j]) {
			j++
		}
		if j-g > 4 {
			return -1
		}
		// An IPv4 tail: "::ffff:192.0.2.128" (two groups' worth).
		if j < len(s) && s[j] == '.' && (double || groups == 6) {
			var r numRun
			if parseRun(s, g, &r) && r.seps == sepDot && r.n == 4 && ipv4(groupStrings(s, &r)) {
				groups += 2
				j = r.end
			}
			break
		}
		if j > g {
			groups++
			if groups == 1 {
				first = s[g:j]
			}
		}
		if j+1 < len(s) && s[j] == ':' && s[j+1] == ':' {
			if double {
				return -1
			}
			double = true
			j += 2
			continue
		}
		if j > g && j+1 < len(s) && s[j] == ':' && isHex(s[j+1]) {
			j++
			continue
		}
		break
	}
	if j < len(s) && (wordAt(s, j) || s[j] == ':') {
		return -1
	}
	// With "::", three groups, or two when the first is a full group
	// with a digit ("fe80::1"), so that "a::b" and "dead::beef" in code
	// are not addresses; or one group with a digit after a leading "::"
	// ("::1", "::2"), which code does not write after white space or
	// punctuation (the scanner starts "::" only there).
	lead := s[i] == ':'
	if !double && groups != 8 || double && groups < 1 || groups == 1 && !(lead && strings.IndexAny(first, "0123456789") >= 0) ||
		groups == 2 && !(len(first) == 4 && strings.IndexAny(first, "0123456789") >= 0) {
		return -1
	}
	return j
}

// ipv4 checks four dot-separated decimal octets without leading zeros.
func ipv4(parts []string) bool {
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if len(p) == 0 || len(p) > 3 || len(p) > 1 && p[0] == '0' {
			return false
		}
		v := 0
		for i := 0; i < len(p); i++ {
			v = v*10 + int(p[i]-'0')
		}
		if v > 255 {
			return false
		}
	}
	return true
}

// ibanLengths are the IBAN lengths of the registry's countries and of
// those that use IBANs nationally.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22,
	"BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27,
	"DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27,
	"GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28, "HR": 21, "HU": 28, "IE": 22,
	"IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32,
	"LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24,
	"PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
	"SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28, "TL": 23,
	"TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
	// Countries that use IBANs at home but are not (yet) in SWIFT's
	// registry, as listed in Wikipedia's IBAN article and in generators
	// such as Faker ("IR…" with 26 characters).
	"AO": 25, "BF": 28, "BJ": 28, "CF": 27, "CG": 27, "CI": 28, "CM": 27, "CV": 25,
	"DZ": 26, "GA": 27, "GQ": 27, "GW": 25, "HN": 28, "IR": 26, "KM": 27, "MA": 28,
	"MG": 27, "ML": 28, "MZ": 25, "NE": 28, "SN": 28, "TD": 27, "TG": 28,
}

// ibanEnd recognises an IBAN at s[i], compact or printed in groups of four
// separated by single spaces, in either case: country length and mod-97.
func ibanEnd(s string, i int) int {
	if i+4 > len(s) || !isLetter(s[i]) || !isLetter(s[i+1]) || !isDigit(s[i+2]) || !isDigit(s[i+3]) {
		return -1
	}
	cc := string([]byte{upper(s[i]), upper(s[i+1])})
	want, ok := ibanLengths[cc]
	if !ok {
		return -1
	}
	var buf [40]byte
	n, j, run := 0, i, 0
	for j < len(s) && n < want {
		c := s[j]
		if isAlnum(c) {
			buf[n] = upper(c)
			n++
			run++
			j++
			continue
		}
		// A single space between groups of four.
		if c == ' ' && run == 4 && j+1 < len(s) && isAlnum(s[j+1]) {
			run = 0
			j++
			continue
		}
		break
	}
	if n != want || j < len(s) && wordAt(s, j) {
		return -1
	}
	if !mod97(buf[:n]) {
		return -1
	}
	return j
}

func upper(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// mod97 is the IBAN check (ISO 13616): move the first four characters to
// the end, letters become 10..35, and the number mod 97 must be 1.
func mod97(b []byte) bool {
	r := 0
	add := func(c byte) bool {
		switch {
		case isDigit(c):
			r = (r*10 + int(c-'0')) % 97
		case isUpper(c):
			v := int(c-'A') + 10
			r = (r*100 + v) % 97
		default:
			return false
		}
		return true
	}
	for _, c := range b[4:] {
		if !add(c) {
			return false
		}
	}
	for _, c := range b[:4] {
		if !add(c) {
			return false
		}
	}
	return r == 1
}
