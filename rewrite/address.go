package rewrite

import (
	"strings"
	"unicode/utf8"
)

// ADDRESS: a street line. Under an address key or column (names.go) the
// whole value; in free text the US form "1600 Amphitheatre Parkway, Suite
// 5", PO boxes, the European forms "Hauptstraße 12", "12 rue de Rivoli",
// "Via Roma 15", and the CJK forms ending in a house number (建国路88号).

// streetTypes end a street name in the US and British forms
// (lower-case, no dot).
var streetTypes = setOf(`street st avenue ave av road rd boulevard blvd lane ln drive dr court ct way place pl
terrace ter parkway pkwy circle cir highway hwy square sq trail trl loop plaza alley row crescent cres close
grove gardens walk mews pike route expressway expy freeway turnpike causeway broadway`)

// streetPrefixes start a street name in the Romance, Polish and similar
// forms; the house number follows the name (or, in French, precedes it).
var streetPrefixes = setOf(`Via Viale Corso Piazza Piazzale Largo Vicolo Calle Avenida Av Carrer Rua Rue Avenue Boulevard
Plaza Paseo Camino Travessa Praça Largo Alameda Rambla Ronda Chaussée Quai Place Allée Chemin Impasse Cours
ul ulica Aleja al Strada Bulevardul Calea`)

// streetSuffixes end a one-word street name in the Germanic, Nordic,
// Dutch and Finnish forms (lower-case).
var streetSuffixes = []string{"straße", "strasse", "str.", "weg", "gasse", "platz", "allee", "damm", "ring", "ufer",
	"gracht", "straat", "laan", "plein", "kade", "gatan", "vägen", "gata", "gate", "veien", "vej", "gade",
	"katu", "tie", "utca", "ulica", "steig", "markt"}

// unitWords introduce a unit after a street line ("Apt 5B").
var unitWords = setOf(`Apt Apt. Apartment Suite Ste Ste. Unit Flat Floor Fl Room Rm Bldg Building`)

// directions may stand before or after a street name.
var directions = setOf(`N S E W NE NW SE SW N. S. E. W. North South East West`)

// streetNumberAt tries "1600 Amphitheatre Parkway" and "12 rue de Rivoli"
// at the digits s[i]; it emits and returns the end, or -1.
func (sc *scanner) streetNumberAt(i int) int {
	s := sc.s
	j := i
	for j < len(s) && isDigit(s[j]) && j-i < 6 {
		j++
	}
	if j < len(s) && isLetter(s[j]) && (j+1 == len(s) || s[j+1] == ' ') { // "4a"
		j++
	}
	if j+2 >= len(s) || s[j] != ' ' || !isLetter(s[j+1]) && s[j+1] < 0x80 {
		return -1
	}
	// French: "12 rue de Rivoli", "5 avenue Anatole France".
	k := j + 1
	e := nameWordEnd(s, k)
	if w := s[k:e]; e > k && (w == "rue" || w == "avenue" || w == "boulevard" || w == "place" || w == "allée" || w == "chemin" || w == "impasse" || w == "quai" || w == "cours") {
		end := streetName(s, e, 4)
		if end > e {
			sc.emit(i, end, TypeAddress)
			return end
		}
		return -1
	}
	// US and British: up to five words, the last a street type.
	end := -1
	p := j + 1
	for n := 0; n < 6 && p < len(s); n++ {
		q := p
		for q < len(s) && (isAlnum(s[q]) || s[q] >= 0x80 || s[q] == '.' && q > p) {
			q++
		}
		if q == p {
			break
		}
		w := strings.TrimSuffix(s[p:q], ".")
		if n > 0 && inSet(streetTypes, w) && (isUpper(s[p]) || isDigit(s[p])) {
			end = q
			if q+1 < len(s) && s[q] == ' ' && directions[nextWord(s, q+1)] {
				end = q + 1 + len(nextWord(s, q+1))
			}
			break
		}
		if !(isUpper(s[p]) || isDigit(s[p]) || s[p] >= 0x80) {
			break
		}
		if q >= len(s) || s[q] != ' ' {
			break
		}
		p = q + 1
	}
	if end < 0 {
		return -1
	}
	end = unitAfter(s, end)
	sc.emit(i, end, TypeAddress)
	return end
}

// nextWord is the run of non-space, non-comma bytes at s[i].
func nextWord(s string, i int) string {
	j := i
	for j < len(s) && s[j] != ' ' && s[j] != ',' && s[j] != '\n' {
		j++
	}
	return s[i:j]
}

// unitAfter extends a street line ending at end by ", Apt 5B", " Suite
// 1200" or " #1400".
func unitAfter(s string, end int) int {
	j := end
	if j < len(s) && s[j] == ',' {
		j++
	}
	if j+1 >= len(s) || s[j] != ' ' {
		return end
	}
	j++
	if s[j] == '#' {
		k := j + 1
		for k < len(s) && isAlnum(s[k]) {
			k++
		}
		if k > j+1 {
			return k
		}
		return end
	}
	w := nextWord(s, j)
	if !unitWords[w] || j+len(w)+1 >= len(s) || s[j+len(w)] != ' ' {
		return end
	}
	k := j + len(w) + 1
	if s[k] == '#' {
		k++
	}
	m := k
	for m < len(s) && isAlnum(s[m]) {
		m++
	}
	if m == k || !isDigit(s[k]) && m-k > 2 {
		return end
	}
	return m
}

// streetName reads up to n words of a street's name from s[i] (at a
// space) and returns their end, i when there is none.
func streetName(s string, i, n int) int {
	end := i
	for k := 0; k < n && end+1 < len(s) && s[end] == ' '; k++ {
		e := nameWordEnd(s, end+1)
		if e == end+1 {
			break
		}
		w := s[end+1 : e]
		if !capitalAt(s, end+1) && !particles[w] && w != "des" && w != "d" {
			break
		}
		end = e
	}
	return end
}

// streetWordAt tries "P.O. Box 77", "Via Roma 15", "ul. Marszałkowska
// 84" and "Hauptstraße 12" at the letter s[i]; it emits and returns the
// end, or -1.
func (sc *scanner) streetWordAt(i int) int {
	s := sc.s
	if c := s[i]; c < 0x80 && !isUpper(c) && !(i+3 < len(s) && s[i+2] == '.' && (s[i:i+2] == "ul" || s[i:i+2] == "al")) {
		return -1 // every form starts capitalised, but "ul." and "al."
	}
	if end := poBoxEnd(s, i); end > 0 {
		sc.emit(i, end, TypeAddress)
		return end
	}
	e := nameWordEnd(s, i)
	if e == i {
		return -1
	}
	w := s[i:e]
	if e < len(s) && s[e] == '.' && (w == "ul" || w == "al" || w == "Av") {
		e++
	}
	if streetPrefixes[w] && e+1 < len(s) && s[e] == ' ' {
		end := streetName(s, e, 5)
		if end > e {
			if n := houseNumber(s, end); n > 0 {
				sc.emit(i, n, TypeAddress)
				return n
			}
		}
		return -1
	}
	// "Hauptstraße 12", "Schillerstr. 4a", "Andrássy út 60".
	if !capitalAt(s, i) {
		return -1
	}
	if e < len(s) && s[e] == '.' && hasSuffixFold(w, "str") {
		e++
		w = s[i:e]
	}
	for _, suf := range streetSuffixes {
		if hasSuffixFold(w, suf) {
			if n := houseNumber(s, e); n > 0 {
				sc.emit(i, n, TypeAddress)
				return n
			}
			return -1
		}
	}
	if e+1 < len(s) && s[e] == ' ' && isUpper(s[i]) {
		e2 := nameWordEnd(s, e+1)
		if nw := s[e+1 : e2]; nw == "út" || nw == "utca" || nw == "u." || nw == "náměstí" || nw == "tér" {
			if n := houseNumber(s, e2); n > 0 {
				sc.emit(i, n, TypeAddress)
				return n
			}
		}
	}
	return -1
}

// houseNumber returns the end of " 12", " 4a", " 12-14" at s[i], or -1.
func houseNumber(s string, i int) int {
	if i+1 >= len(s) || s[i] != ' ' || !isDigit(s[i+1]) {
		return -1
	}
	j := i + 1
	for j < len(s) && isDigit(s[j]) && j-i <= 5 {
		j++
	}
	if j < len(s) && s[j] == '-' && j+1 < len(s) && isDigit(s[j+1]) {
		for j++; j < len(s) && isDigit(s[j]); j++ {
		}
	}
	if j < len(s) && isLetter(s[j]) && (j+1 == len(s) || !isAlnum(s[j+1])) {
		j++
	}
	if j < len(s) && isAlnum(s[j]) {
		return -1
	}
	return j
}

// poBoxEnd returns the end of "PO Box 1234", "P.O. Box 77" or "Post
// Office Box 5" at s[i], or -1.
func poBoxEnd(s string, i int) int {
	if s[i] != 'P' {
		return -1
	}
	var rest string
	for _, p := range []string{"PO Box ", "P.O. Box ", "P. O. Box ", "Post Office Box ", "PO BOX ", "P.O. BOX "} {
		if strings.HasPrefix(s[i:], p) {
			rest = p
			break
		}
	}
	if rest == "" {
		return -1
	}
	j := i + len(rest)
	k := j
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	if k == j || k < len(s) && isLetter(s[k]) {
		return -1
	}
	return k
}

// maxCJKAddress bounds a CJK street line, in bytes.
const maxCJKAddress = 120

// cjkAddressAt tries a CJK street line at s[i]: a run of CJK characters
// and digits holding a street word (路, 街, 道, 大道, 로, 길) followed by
// a house number and 号/號/番地, or a Japanese 丁目 address.
func (sc *scanner) cjkAddressAt(i int) int {
	s := sc.s
	j := i
	street, number := false, false
	digitsAfterStreet := false
	for j < len(s) && j-i < maxCJKAddress {
		r, size := utf8.DecodeRuneInString(s[j:])
		switch {
		case r == '路' || r == '街' || r == '道' || r == '로' || r == '길':
			street = true
		case r >= '0' && r <= '9' || r == '-':
			if street {
				digitsAfterStreet = true
			}
		case (r == '号' || r == '號' || r == '番' || r == '丁') && digitsAfterStreet:
			number = true
		case r == ' ' && j+1 < len(s) && (isDigit(s[j+1]) || s[j+1] >= 0x80):
		case r >= 0x3000 && r <= 0x9fff, r >= 0xac00 && r <= 0xd7af, r >= 0xf900 && r <= 0xfaff:
		default:
			goto done
		}
		j += size
		if number {
			// take the rest of the house number (号, 1-9-1, 番地)
			for j < len(s) {
				r, size := utf8.DecodeRuneInString(s[j:])
				if r != '地' && r != '目' && r != '楼' && r != '室' && !(r >= '0' && r <= '9') && r != '-' {
					break
				}
				j += size
			}
			break
		}
	}
done:
	if !(street && (number || digitsAfterStreet)) {
		return -1
	}
	for j > i && s[j-1] == ' ' {
		j--
	}
	sc.emit(i, j, TypeAddress)
	return j
}

// hasSuffixFold is strings.HasSuffix ignoring the case of w's ASCII
// letters (suf is lower-case); a non-ASCII ending is compared as written
// ("Straße" ends in "straße").
func hasSuffixFold(w, suf string) bool {
	if len(w) < len(suf) {
		return false
	}
	t := w[len(w)-len(suf):]
	for k := 0; k < len(suf); k++ {
		if lower(t[k]) != suf[k] {
			return false
		}
	}
	return true
}
