package rewrite

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Options choose the detectors. The zero value enables none; Defaults
// returns toolfold's defaults.
type Options struct {
	// Detectors maps a detector name (DetectorNames) to on or off; a name
	// that is absent is off.
	Detectors map[string]bool
	// PhoneRegions are ISO 3166 region codes (US, GB, DE, …) whose national
	// phone formats are recognised. International numbers (+CC …) and
	// numbers introduced by a word such as "phone" or "fax" are recognised
	// whatever the regions.
	PhoneRegions []string
	// Allow lists values that are never tokenized (a support address, a
	// company's switchboard), compared exactly.
	Allow []string
	// Custom are extra detectors: Name (see ValidCustomName) becomes the
	// token type, Pattern is a Go regular expression.
	Custom []CustomPattern
}

// CustomPattern is one custom detector.
type CustomPattern struct {
	Name    string
	Pattern string
}

// Defaults enables every built-in detector with no national phone region.
func Defaults() Options {
	on := make(map[string]bool)
	for _, n := range DetectorNames() {
		on[n] = true
	}
	return Options{Detectors: on}
}

// Detector finds values in text. It is immutable and safe for concurrent use.
type Detector struct {
	on      [numKinds]bool
	regions regionSet
	allow   map[string]struct{}
	custom  []customRule
	types   map[string]bool // every type a token can have, TypeToken included
}

type customRule struct {
	typ string
	re  *regexp.Regexp
}

// Span is one value found in a text: text[Start:End] is of type Type.
type Span struct {
	Start, End int
	Type       string
}

// NewDetector checks opts and builds a detector.
func NewDetector(opts Options) (*Detector, error) {
	d := &Detector{allow: make(map[string]struct{}), types: map[string]bool{TypeToken: true}}
	for name, on := range opts.Detectors {
		k, ok := kindOf(name)
		if !ok {
			return nil, fmt.Errorf("unknown PII detector %q; use one of %s", name, strings.Join(DetectorNames(), ", "))
		}
		d.on[k] = on
	}
	for k := range numKinds {
		d.types[kindType[k]] = true
	}
	for _, r := range opts.PhoneRegions {
		if err := d.regions.add(r); err != nil {
			return nil, err
		}
	}
	for _, v := range opts.Allow {
		d.allow[v] = struct{}{}
	}
	for _, c := range opts.Custom {
		if !ValidCustomName(c.Name) {
			return nil, fmt.Errorf("custom PII detector name %q: use letters, digits and '_', starting with a letter, and not a built-in type", c.Name)
		}
		typ := strings.ToUpper(c.Name)
		if d.types[typ] {
			return nil, fmt.Errorf("custom PII detector %q is defined twice", c.Name)
		}
		re, err := regexp.Compile(c.Pattern)
		if err != nil {
			return nil, fmt.Errorf("custom PII detector %q: bad pattern: %v", c.Name, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("custom PII detector %q: pattern %q matches empty text; make it match at least one character", c.Name, c.Pattern)
		}
		d.types[typ] = true
		d.custom = append(d.custom, customRule{typ: typ, re: re})
	}
	return d, nil
}

// Find appends the values found in s to dst, in order, without overlaps.
func (d *Detector) Find(s string, dst []Span) []Span {
	return d.find(s, "", dst, false)
}

// find is Find with a hint (a JSON object key, for phone context) and,
// with literals, spans of type TypeToken for text already shaped like a token.
func (d *Detector) find(s, hint string, dst []Span, literals bool) []Span {
	base := len(dst)
	var nt *normalText
	text := s
	if needsNormal(s) {
		nt = normalize(s)
		text = nt.s
	}
	sc := scanner{d: d, s: text, hint: hint, literals: literals, out: dst, nextAt: -1, nextColon: -1}
	if d.on[kSecret] {
		sc.rules.rs = secretRules()
	}
	if d.on[kName] || d.on[kAddr] {
		sc.oneLine = strings.IndexByte(text, '\n') < 0
	}
	if sp, ok := d.hintedSpan(text, hint); ok {
		sc.out = append(sc.out, sp)
	} else {
		sc.run()
	}
	dst = sc.out
	if len(sc.rules.out) > 0 {
		dst = mergeSpans(dst, base, sc.rules.out)
	}
	if nt != nil {
		dst = append(dst[:base], nt.back(dst[base:])...)
	}
	if len(d.custom) > 0 {
		dst = d.findCustom(s, dst, base)
	}
	if len(d.allow) > 0 {
		dst = d.dropAllowed(s, dst, base)
	}
	return dst
}

func (d *Detector) dropAllowed(s string, dst []Span, base int) []Span {
	out := dst[:base]
	for _, sp := range dst[base:] {
		if _, ok := d.allow[s[sp.Start:sp.End]]; ok && sp.Type != TypeToken {
			continue
		}
		out = append(out, sp)
	}
	return out
}

// findCustom adds the matches of the custom patterns that overlap nothing
// found so far (earlier patterns win among themselves), keeping dst[base:]
// sorted. It is O(n log n) in the number of spans.
func (d *Detector) findCustom(s string, dst []Span, base int) []Span {
	var cand []Span
	for _, c := range d.custom {
		for _, m := range c.re.FindAllStringIndex(s, -1) {
			if m[0] < m[1] {
				cand = append(cand, Span{Start: m[0], End: m[1], Type: c.typ})
			}
		}
	}
	if len(cand) == 0 {
		return dst
	}
	sort.SliceStable(cand, func(i, j int) bool { return cand[i].Start < cand[j].Start })
	merged := make([]Span, 0, len(dst)-base+len(cand))
	built := dst[base:]
	end := 0 // end of the last span kept
	k := 0
	for _, c := range cand {
		for k < len(built) && built[k].Start < c.End {
			merged = append(merged, built[k])
			end = max(end, built[k].End)
			k++
		}
		if c.Start >= end && (k == len(built) || c.End <= built[k].Start) {
			merged = append(merged, c)
			end = c.End
		}
	}
	merged = append(merged, built[k:]...)
	return append(dst[:base], merged...)
}

// Character classes, one table lookup per byte.
const (
	cLetter = 1 << iota
	cDigit
	cHex
	cWord  // letters, digits, '_' and bytes of multi-byte UTF-8
	cLocal // the local part of an email address
	cB64   // base64url and JWT segment characters
)

var class [256]uint8

func init() {
	for c := 0; c < 256; c++ {
		var m uint8
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			m = cLetter | cWord | cLocal | cB64
			if c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
				m |= cHex
			}
		case c >= '0' && c <= '9':
			m = cDigit | cHex | cWord | cLocal | cB64
		case c == '_':
			m = cWord | cLocal | cB64
		case c == '-':
			m = cLocal | cB64
		case c == '.' || c == '%' || c == '+' || c == '\'':
			// "o'neil@example.com"; emailEnd keeps a quote off the ends.
			m = cLocal
		case c >= 0x80:
			// Internationalized addresses: "müller@bücher.de".
			m = cWord | cLocal
		}
		class[c] = m
	}
}

func isLetter(c byte) bool { return class[c]&cLetter != 0 }

// wordRune: a letter, digit or combining mark of any script (an invalid
// byte counts too, so that nothing is split at it). Other non-ASCII runes
// (« », →, ・, …) are punctuation: a value may start or end next to one.
func wordRune(r rune) bool {
	return r == utf8.RuneError || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// wordAt reports whether s[j] starts a word character (isWord for ASCII,
// wordRune beyond).
func wordAt(s string, j int) bool {
	if c := s[j]; c < 0x80 {
		return isWord(c)
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return wordRune(r)
}

// wordBefore reports whether the character that ends at s[i] (i > 0) is
// a word character.
func wordBefore(s string, i int) bool {
	if c := s[i-1]; c < 0x80 {
		return isWord(c)
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return wordRune(r)
}
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return class[c]&cHex != 0 }
func isWord(c byte) bool  { return class[c]&cWord != 0 }
func isAlnum(c byte) bool { return class[c]&(cLetter|cDigit) != 0 }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}
