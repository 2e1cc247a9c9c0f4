package rewrite

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A value can be written so that a byte-level scan misses it: fullwidth
// forms ("ｊｏｅ＠example.com", "４１１１…"), zero-width characters inside
// it ("joe\u200b@example.com"), or percent-encoding ("joe%40example.com"
// in a URL). normalize rewrites such text into the form the scanner reads
// (NFKC, zero-width characters dropped, other punctuation beyond ASCII
// read as a space, %XX of printable ASCII and the space decoded)
// and remembers, for every byte it writes, the span of the original text
// it came from, so that a value found in the normal form is replaced in
// the original bytes, whatever spelling they use.

// needsNormal reports whether s holds a byte that normalize may change:
// any non-ASCII byte, or a '%' followed by two hex digits. Pure ASCII
// without escapes, most text, takes the fast path.
func needsNormal(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight bytes at a time for the high bit
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if x&0x8080808080808080 != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	for k := strings.IndexByte(s, '%'); k >= 0; {
		if k+2 < len(s) && isHex(s[k+1]) && isHex(s[k+2]) {
			return true
		}
		j := strings.IndexByte(s[k+1:], '%')
		if j < 0 {
			break
		}
		k += 1 + j
	}
	return false
}

// normalText is a normal form and its map back to the original.
type normalText struct {
	s     string
	start []int32 // start[k]: where the original of s[k] starts
	end   []int32 // end[k]: where it ends
}

// zeroWidth are characters that print as nothing and split a value.
func zeroWidth(r rune) bool {
	switch r {
	case '\u00ad', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u180e':
		return true
	}
	return false
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// normalize builds the normal form of s (see needsNormal).
func normalize(s string) *normalText {
	n := &normalText{start: make([]int32, 0, len(s)), end: make([]int32, 0, len(s))}
	out := make([]byte, 0, len(s))
	emit := func(b []byte, from, to int) {
		out = append(out, b...)
		for range b {
			n.start = append(n.start, int32(from))
			n.end = append(n.end, int32(to))
		}
	}
	var one [1]byte
	var tmp []byte
	for i := 0; i < len(s); {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]) {
			// "%20" too: "4111%201111%201111%201111" in a URL.
			if v := unhex(s[i+1])<<4 | unhex(s[i+2]); v >= ' ' && v < 0x7f && v != '%' {
				one[0] = v
				emit(one[:], i, i+3)
				i += 3
				continue
			}
		}
		if c < 0x80 {
			one[0] = c
			emit(one[:], i, i+1)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if zeroWidth(r) {
			i += size
			continue
		}
		tmp = norm.NFKC.AppendString(tmp[:0], s[i:i+size])
		// Punctuation and symbols beyond ASCII that NFKC keeps («, →,
		// 。) read as a space: a value ends and starts there, for the
		// hand-written detectors and gitleaks' patterns alike. No value
		// holds one.
		if len(tmp) > 0 && tmp[0] >= 0x80 {
			if r, n := utf8.DecodeRune(tmp); n == len(tmp) && !wordRune(r) {
				tmp = append(tmp[:0], ' ')
			}
		}
		emit(tmp, i, i+size)
		i += size
	}
	n.s = string(out)
	return n
}

// back maps spans of the normal form onto the original text and returns
// them. Two spans that meet inside one character's expansion ("ﬁ" is
// "fi") would overlap in the original: they become one, the first's type.
func (n *normalText) back(spans []Span) []Span {
	out := spans[:0]
	for _, sp := range spans {
		sp.Start, sp.End = int(n.start[sp.Start]), int(n.end[sp.End-1])
		if k := len(out) - 1; k >= 0 && sp.Start < out[k].End {
			out[k].End = max(out[k].End, sp.End)
			continue
		}
		out = append(out, sp)
	}
	return out
}
