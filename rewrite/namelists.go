package rewrite

import (
	_ "embed" // the name and word lists
	"strings"
	"sync"
	"unicode/utf8"
)

//go:generate sh internal/gennames/gen.sh

// The lists the NAME detector reads (testdata/SOURCES.md says where they
// come from): lower-case, one a line, sorted. They are turned into a map
// the first time a name is looked up, so a process that never meets a
// capitalised word (a sandbox child) pays nothing for them.
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
	wStop                // a product, company or place that looks like a name
)

var (
	lexOnce sync.Once
	lex     map[string]uint8
)

// lexicon returns the merged lists, built once.
func lexicon() map[string]uint8 {
	lexOnce.Do(func() {
		lex = make(map[string]uint8, 110000)
		for _, l := range []struct {
			text string
			flag uint8
		}{{givenList, wGiven}, {surnameList, wSurname}, {wordList, wWord}, {stopList, wStop}} {
			for _, w := range strings.Fields(l.text) {
				lex[w] |= l.flag
			}
		}
	})
	return lex
}

// stopList: surnames that end a company's or product's name more often
// than a person's ("John Deere", "Morgan Stanley", "Calvin Klein"),
// lower-case; they stop a run they end. Voice assistants' names are
// never a name standing alone, and "Claude" starts a product's name
// ("Claude Code", "Claude Desktop") far more often than a person's.
const stopList = `
deere schwab stanley sachs fargo hilfiger klein lauren davidson benz kellogg packard
boeing carnegie rockefeller edison marriott hilton hyatt chrysler porsche ferrari
lamborghini hershey nordstrom macy walgreens heinz wrigley
siri alexa cortana bixby claude
`

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
			return lexicon()[fold(w)]
		}
		lw = append(lw, lower(c))
	}
	return lexicon()[string(lw)]
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
