// Package glob matches the globs that proxy.yaml writes over qualified
// tool names (server.tool): policy rules, `toolfold audit --tool`, and
// every later rule that names tools. It is the one matcher for them, so
// a glob means the same thing wherever it is written.
//
// The syntax is path.Match's, with one difference that matters for a
// security rule: a tool name is not a path, so nothing is a separator.
//
//   - any run of characters, none included: slashes, dots, spaces too
//     ?        exactly one character (a Unicode code point)
//     [a-z]    one character in the class; [^a-z] one not in it
//     \c       the character c itself (\*, \?, \[, \\)
//
// path.Match's * stops at "/", so a rule "evil.*" let an upstream's tool
// "admin/wipe" through; here it does not. Names are compared as they
// are: case matters, and nothing is normalized.
package glob

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrBadPattern reports a glob that cannot be compiled; errors from
// Compile and Check wrap it.
var ErrBadPattern = errors.New("invalid glob")

// Pattern is a compiled glob. The zero value matches only "".
type Pattern struct {
	src  string
	toks []token
}

type kind uint8

const (
	lit   kind = iota // one rune, itself
	one               // ?
	star              // *
	class             // [...]
)

type token struct {
	kind   kind
	lit    string    // lit: the character's bytes as written (invalid UTF-8 too)
	negate bool      // class: [^...]
	ranges []runeRng // class
}

type runeRng struct{ lo, hi rune }

// Compile parses pattern. Its error says what is wrong and wraps
// ErrBadPattern.
func Compile(pattern string) (Pattern, error) {
	p := Pattern{src: pattern}
	for i := 0; i < len(pattern); {
		t, n, err := next(pattern[i:])
		if err != nil {
			return Pattern{}, fmt.Errorf("%w %q: %s", ErrBadPattern, pattern, err)
		}
		if t.kind == star && len(p.toks) > 0 && p.toks[len(p.toks)-1].kind == star {
			i += n // ** is *
			continue
		}
		p.toks = append(p.toks, t)
		i += n
	}
	return p, nil
}

// MustCompile is Compile for patterns known to be valid; it panics on
// an error.
func MustCompile(pattern string) Pattern {
	p, err := Compile(pattern)
	if err != nil {
		panic(err)
	}
	return p
}

// Check reports whether pattern compiles (nil) or why not.
func Check(pattern string) error {
	_, err := Compile(pattern)
	return err
}

// Match reports whether name matches pattern. A pattern that does not
// compile matches nothing; validate patterns with Check where they are
// read (config does).
func Match(pattern, name string) bool {
	p, err := Compile(pattern)
	return err == nil && p.Match(name)
}

// String returns the pattern as written.
func (p Pattern) String() string { return p.src }

// next reads one token from the start of s and its length in bytes.
func next(s string) (token, int, error) {
	switch s[0] {
	case '*':
		return token{kind: star}, 1, nil
	case '?':
		return token{kind: one}, 1, nil
	case '[':
		return parseClass(s)
	}
	_, n, err := escaped(s)
	if err != nil {
		return token{}, 0, err
	}
	if s[0] == '\\' {
		return token{kind: lit, lit: s[1:n]}, n, nil
	}
	return token{kind: lit, lit: s[:n]}, n, nil
}

// escaped reads one character from the start of s, a backslash quoting
// the one after it.
func escaped(s string) (rune, int, error) {
	if s[0] != '\\' {
		r, n := utf8.DecodeRuneInString(s)
		return r, n, nil
	}
	if len(s) == 1 {
		return 0, 0, errors.New(`ends with a lone \ (write \\ for a backslash)`)
	}
	r, n := utf8.DecodeRuneInString(s[1:])
	return r, n + 1, nil
}

// parseClass reads a [...] class from the start of s.
func parseClass(s string) (token, int, error) {
	t := token{kind: class}
	i := 1
	if i < len(s) && s[i] == '^' {
		t.negate = true
		i++
	}
	for {
		if i >= len(s) {
			return t, 0, errors.New("has a [ without its ] (write \\[ for a bracket)")
		}
		if s[i] == ']' && len(t.ranges) > 0 {
			return t, i + 1, nil
		}
		rg, n, err := parseRange(s[i:])
		if err != nil {
			return t, 0, err
		}
		t.ranges = append(t.ranges, rg)
		i += n
	}
}

// parseRange reads c or lo-hi inside a class.
func parseRange(s string) (runeRng, int, error) {
	if s[0] == '-' || s[0] == ']' {
		return runeRng{}, 0, fmt.Errorf("has %q where a class needs a character (write \\%c)", s[0], s[0])
	}
	lo, n, err := escaped(s)
	if err != nil {
		return runeRng{}, 0, err
	}
	if n >= len(s) || s[n] != '-' || n+1 >= len(s) || s[n+1] == ']' {
		return runeRng{lo, lo}, n, nil
	}
	hi, m, err := escaped(s[n+1:])
	if err != nil {
		return runeRng{}, 0, err
	}
	if hi < lo {
		return runeRng{}, 0, fmt.Errorf("has the empty range %c-%c (write the lower end first)", lo, hi)
	}
	return runeRng{lo, hi}, n + 1 + m, nil
}

// Match reports whether name matches p. It runs in O(len(p)·len(name))
// at worst, with no recursion.
func (p Pattern) Match(name string) bool {
	ti, si := 0, 0
	backT, backS := -1, 0 // the last star seen, and where its run ends now
	for ti < len(p.toks) || si < len(name) {
		if ti < len(p.toks) {
			t := p.toks[ti]
			if t.kind == star {
				backT, backS = ti, si
				ti++
				continue
			}
			if w := t.width(name[si:]); w > 0 {
				ti, si = ti+1, si+w
				continue
			}
		}
		if backT < 0 || backS >= len(name) {
			return false
		}
		_, w := utf8.DecodeRuneInString(name[backS:])
		backS += w // the star takes one more character
		ti, si = backT+1, backS
	}
	return true
}

// width is the length in bytes of the character at the start of s that
// the single-character token t matches, or 0 when it does not.
func (t token) width(s string) int {
	if t.kind == lit {
		if strings.HasPrefix(s, t.lit) {
			return len(t.lit)
		}
		return 0
	}
	if s == "" {
		return 0
	}
	r, w := utf8.DecodeRuneInString(s)
	if !t.matches(r) {
		return 0
	}
	return w
}

// matches reports whether the token t, ? or a class, matches r.
func (t token) matches(r rune) bool {
	switch t.kind {
	case one:
		return true
	case class:
		in := false
		for _, rg := range t.ranges {
			if rg.lo <= r && r <= rg.hi {
				in = true
				break
			}
		}
		return in != t.negate
	}
	return false
}
