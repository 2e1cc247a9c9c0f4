package rewrite

import (
	_ "embed" // the name and word lists
	"strings"
	"unicode/utf8"
)

//go:generate sh internal/gennames/gen.sh

// The lists the NAME detector reads (testdata/SOURCES.md says where they
// come from): lower-case, one a line, sorted (byte order), embedded as
// they are.
var (
	//go:embed namelists/given.txt
	givenList string
	//go:embed namelists/surnames.txt
	surnameList string
	//go:embed namelists/words.txt
	wordList string
)

// Flags of a word in the lists.
const (
	wGiven   = 1 << iota // a given name (SSA, Census)
	wSurname             // a surname (Census)
	wWord                // an ordinary English word (wamerican, lower-case entries)
	wStop                // a product that looks like a name (stopList)
)

// The lists are searched where they lie, sorted, by bisection: nothing
// is built, so neither start-up nor the first lookup pays for them.

// inList reports whether w (lower-case) is a line of list, a sorted text
// of lines each ending in '\n'.
func inList(list, w string) bool {
	lo, hi := 0, len(list) // list[lo:hi] is whole lines
	for lo < hi {
		mid := lo + (hi-lo)/2
		// The line holding mid.
		ls := strings.LastIndexByte(list[lo:mid], '\n') + 1 + lo
		le := strings.IndexByte(list[mid:hi], '\n') + mid
		switch line := list[ls:le]; {
		case line == w:
			return true
		case line < w:
			lo = le + 1
		default:
			hi = ls
		}
	}
	return false
}

// stop holds stopList's words.
var stop = setOf(stopList)

// stopList: words that look like a name but, in the text toolfold
// carries, almost always start a product's: "Claude" names the MCP
// clients ("Claude Code", "Claude Desktop") that its own configuration
// and tool descriptions mention, far more often than a person. It holds
// no company or brand named after its founders (a bank named for two of
// them is found as a name): such a list would need a source, not the
// examples of a test set, and its surnames are people's too.
const stopList = `claude`

// lexOf returns the flags of word w (any case).
func lexOf(w string) uint8 {
	if len(w) > 40 {
		return 0
	}
	var buf [40]byte
	lw := buf[:0]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 {
			return flagsOf(fold(w))
		}
		lw = append(lw, lower(c))
	}
	return flagsOf(string(lw))
}

// flagsOf returns the flags of lw, lower-case.
func flagsOf(lw string) uint8 {
	var f uint8
	if inList(givenList, lw) {
		f |= wGiven
	}
	if inList(surnameList, lw) {
		f |= wSurname
	}
	if inList(wordList, lw) {
		f |= wWord
	}
	if stop[lw] {
		f |= wStop
	}
	return f
}

// fold lower-cases w and drops the accents of Latin letters ("Élodie" →
// "elodie"), as the lists are written.
func fold(w string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(w) {
		if r < 0x80 {
			b.WriteRune(r)
			continue
		}
		if a, ok := accents[r]; ok {
			b.WriteString(a)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

var accents = func() map[rune]string {
	m := map[rune]string{}
	for _, p := range strings.Fields(`àa áa âa ãa äa åa æae çc èe ée êe ëe ìi íi îi ïi ñn òo óo ôo õo öo øo ùu úu ûu üu ýy ÿy
āa ăa ąa ćc čc ďd đd ēe ėe ęe ěe ğg īi įi ıi łl ľl ńn ňn ōo őo œoe řr śs şs šs ťt ūu ůu űu ųu źz żz žz ßss`) {
		r, size := utf8.DecodeRuneInString(p)
		m[r] = p[size:]
	}
	return m
}()
