package rewrite

import "strings"

// Free-text cues for names, matched on words as written.
var (
	titles = setOf(`Mr Mrs Ms Miss Mx Dr Prof Sir Madam Mme Mlle Herr Frau Sr Sra Srta Dott
Professor Producer Director Senator Judge Detective Inspector Sergeant Captain Lieutenant Colonel Governor Mayor
Reverend Rev Coach Officer`)
	salutations = setOf(`Dear Hi Hello Hey Dearest Hallo Bonjour Hola Ciao`)
	// signOffs end the line before a signature (lower-case, no comma).
	signOffs = setOfLines(`regards|best regards|kind regards|warm regards|best wishes|best|thanks|thank you|many thanks|cheers|sincerely|yours sincerely|yours truly|yours|respectfully|all the best|mit freundlichen grüßen|cordialement|saludos`)
	// cueBefore end the text before a name (lower-case).
	cuesBefore = []string{"my name is ", "name is ", "named ", "named him ", "named her ", "i am ", "i'm ", "call me ", "name's ", "name? "}
)

// placeNouns end the names of places, streets and organisations
// ("Lincoln Center", "Monika Union", "Shepherd Ltd"): a run that ends in
// one, or is followed by one, is no person (lower-case).
var placeNouns = setOf(`union point points park street st place lodge center centre line ltd inc corp llc plc gmbh
co company group bank university college school hospital station bridge tower square lake river island county
city valley theatre theater museum library gardens garden airport road avenue ave court building orchestra band
foundation institute hills heights village crossing junction mills ridge harbor harbour port beach springs falls
grove meadows estates landing pass hollow creek forest woods stadium arena church cathedral chapel hotel drive
way lane terrace parkway boulevard plaza trail suite apt award prize act law day`)

// functionWords are short ordinary words a sentence starts with that
// the name lists also hold ("In", "My", "So"): never a name's first word.
var functionWords = setOf(`in on at my so do be the an and or but if as by to of we he me us no up it is am are was
his her our its this that my all any can may will new`)

func setOfLines(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Split(s, "|") {
		m[normKey(w)] = true // as inSet looks them up
	}
	return m
}

// nameish: a word that may be part of a name: a given name, a surname
// that is no ordinary word, or a word no list knows.
func (w nameWord) nameish() bool {
	return !w.initial && !w.particle && (w.flags&wGiven != 0 || w.flags&wSurname != 0 && w.flags&wWord == 0 || w.flags == 0)
}

// nameWord is one word of a capitalised run.
type nameWord struct {
	start, end int
	flags      uint8
	initial    bool // "J."
	particle   bool
}

// capRun reads up to 4 name words from s[i], separated by single spaces:
// capitalised words, initials and particles (not last). The run stops at a
// possessive ("Yefremova's").
func capRun(s string, i int, ws *[4]nameWord) int {
	n := 0
	j := i
	for n < 4 && j < len(s) {
		if !capitalAt(s, j) && !(n > 0 && isLetter(s[j])) {
			break
		}
		e := nameWordEnd(s, j)
		if e == j {
			break
		}
		w := nameWord{start: j, end: e}
		switch {
		case e == j+1 && e < len(s) && s[e] == '.' && isUpper(s[j]):
			w.initial, w.end = true, e+1
		case !capitalAt(s, j):
			if !particles[s[j:e]] {
				return n
			}
			w.particle = true
		}
		if !w.initial && !w.particle {
			w.flags = lexOf(s[j:e])
		}
		ws[n] = w
		n++
		j = w.end
		if j+1 >= len(s) || s[j] != ' ' || j < len(s) && s[j] == '\'' {
			break
		}
		j++
	}
	for n > 0 && ws[n-1].particle {
		n--
	}
	return n
}

// nameAt tries the name cues and the free-text rule at the capitalised
// word s[i]; it emits and returns the end of what it emitted, or -1.
func (sc *scanner) nameAt(i int) int {
	s := sc.s
	if i+1 < len(s) && isUpper(s[i+1]) {
		return -1 // "ORD", "JSON", "IDs": capitals, no name
	}
	var ws [4]nameWord
	n := capRun(s, i, &ws)
	if n == 0 {
		return -1
	}
	w0 := s[ws[0].start:ws[0].end]
	if strings.HasPrefix(w0, "I'") {
		return -1 // "I'm", "I'll": the name, if any, follows
	}
	after := ws[0].end
	// "Dr. Jane Doe", "Dear Jane,": the cue word, then a run.
	if titles[w0] || salutations[w0] {
		j := after
		if j < len(s) && s[j] == '.' && titles[w0] {
			j++
		}
		if j+1 < len(s) && s[j] == ' ' && capitalAt(s, j+1) {
			var rs [4]nameWord
			if m := capRun(s, j+1, &rs); m > 0 && m <= 3 {
				end := rs[m-1].end
				if titles[w0] || end == len(s) || strings.IndexByte(",!\n:;", s[end]) >= 0 {
					if r := trimPlain(rs[:m]); !allPlain(r) && !upperWord(s, r[0]) && !titles[s[r[0].start:r[0].end]] {
						end = r[len(r)-1].end
						sc.emit(rs[0].start, end, TypeName)
						return end
					}
				}
			}
		}
		return -1
	}
	if sc.cueBefore(i) || sc.signatureLine(i) || relativeBefore(s, i) || reportedBy(s, i, ws[n-1].end) {
		if end := ws[n-1].end; n <= 4 && !allPlain(ws[:n]) && !upperWord(s, ws[0]) && (n > 1 || ws[0].flags&(wGiven|wSurname) != 0 || ws[0].flags == 0) {
			sc.emit(i, end, TypeName)
			return end
		}
	}
	if inSet(functionWords, w0) || streetPrefixes[w0] || inSet(placeFirst, w0) {
		return -1
	}
	for _, w := range ws[:n] {
		if camel(s, w) {
			return -1 // "FileLess", "NaN": code
		}
	}
	if end := ws[0].end; speaker(s, i, ws[0]) {
		sc.emit(i, end, TypeName)
		return end
	}
	if n == 1 {
		if end := ws[0].end; singleName(s, i, ws[0]) && !streetAround(s, i, end) {
			sc.emit(i, end, TypeName)
			return end
		}
		return -1
	}
	if end, ok := freeName(s, ws[:n]); ok && !streetAround(s, i, end) {
		sc.emit(i, end, TypeName)
		return end
	}
	return -1
}

// allPlain: no word may be part of a name.
func allPlain(ws []nameWord) bool {
	for _, w := range ws {
		if w.nameish() {
			return false
		}
	}
	return true
}

// trimPlain drops the ordinary words that end a run ("Barbara Yudina
// Apt"), keeping at least one word.
func trimPlain(ws []nameWord) []nameWord {
	for len(ws) > 1 && !ws[len(ws)-1].nameish() && !ws[len(ws)-1].initial {
		ws = ws[:len(ws)-1]
	}
	return ws
}

// freeName decides a run with no cue: a given name first, a surname or
// an unknown capitalised word last, not both ordinary words, the last no
// company's.
func freeName(s string, ws []nameWord) (int, bool) {
	first, last := ws[0], ws[len(ws)-1]
	if first.flags&wGiven == 0 && !foreignName(s, ws) && !surnameAfterUnknown(s, ws) || first.flags&wStop != 0 || last.initial || last.flags&wStop != 0 || inSet(placeNouns, s[last.start:last.end]) {
		return 0, false
	}
	for _, w := range ws {
		if upperWord(s, w) {
			return 0, false
		}
	}
	lastOK := last.flags&wSurname != 0 || last.flags == 0 && last.end-last.start > 1
	if !lastOK {
		return 0, false
	}
	if first.flags&wWord != 0 && last.flags&wWord != 0 {
		return 0, false
	}
	for _, w := range ws[1 : len(ws)-1] {
		if !w.initial && !w.particle && w.flags&wWord != 0 && w.flags&(wGiven|wSurname) == 0 {
			return 0, false
		}
	}
	return last.end, true
}

// cueBefore reports whether the text before s[i] ends with a phrase that
// introduces a name ("my name is ").
func (sc *scanner) cueBefore(i int) bool {
	if i < 4 {
		return false
	}
	tail := sc.s[max(0, i-12):i]
	for _, c := range cuesBefore {
		if len(tail) >= len(c) && strings.EqualFold(tail[len(tail)-len(c):], c) {
			return true
		}
	}
	return false
}

// signatureLine reports whether s[i] starts a line that follows a
// sign-off line ("Best regards,").
func (sc *scanner) signatureLine(i int) bool {
	s := sc.s
	if i < 2 || s[i-1] != '\n' {
		return false
	}
	prev := strings.TrimRight(s[max(0, i-40):i-1], " \r,")
	if k := strings.LastIndexByte(prev, '\n'); k >= 0 {
		prev = prev[k+1:]
	} else if i-40 > 0 {
		return false
	}
	return inSet(signOffs, strings.TrimSpace(prev))
}

// upperWord: a word of two or more letters all upper-case ("IBAN").
func upperWord(s string, w nameWord) bool {
	if w.initial || w.end-w.start < 2 {
		return false
	}
	for j := w.start; j < w.end; j++ {
		if s[j] >= 0x80 || !isUpper(s[j]) {
			return false
		}
	}
	return true
}

// streetAround reports whether the run s[i:end] names a street or a
// place: a number before or after it ("5850 Jana Nerudy 894", "Joaquin
// Suarez 2906") or a place noun after it ("Kirk Douglas Theatre").
func streetAround(s string, i, end int) bool {
	if i >= 2 && s[i-1] == ' ' && isDigit(s[i-2]) {
		return true
	}
	if end+1 < len(s) && s[end] == ' ' && isDigit(s[end+1]) {
		return true
	}
	j := end
	if j < len(s) && s[j] == '.' {
		j++
	}
	if j+1 < len(s) && s[j] == ' ' {
		e := nameWordEnd(s, j+1)
		if w := strings.ToLower(s[j+1 : e]); placeNouns[w] || streetTypes[w] {
			return true
		}
	}
	return false
}

// singleName: a given name standing alone ("Jennifer is very reliable",
// "Amanda's daughter") is one when no list calls it an ordinary word or a
// product, and the word before it is not capitalised (a heading, a
// product's name, a first name no list knows). A given name that is a
// surname too ("Scott", "Len") needs a verb after it, not in a code
// comment (where a doc comment's first word names an identifier), or a
// relative after its "'s".
func singleName(s string, i int, w nameWord) bool {
	if w.flags&wGiven == 0 || w.flags&(wWord|wStop) != 0 || w.end-w.start < 3 || upperWord(s, w) {
		return false
	}
	switch {
	case possessive(s, w.end), listed(s, i, w.end, w.flags == wGiven):
	case w.flags != wGiven:
		if sentenceStart(s, i) && vocative(s, w.end) {
			break // "Bryce, can I …"
		}
		if !verbAfter(s, w.end) || strings.HasPrefix(s[w.end:], ",") || strings.HasPrefix(s[w.end:], " and ") || commentLine(s, i) {
			return false
		}
	case !verbAfter(s, w.end) || s[w.end] == ',' && !sentenceStart(s, i):
		return false
	}
	if i >= 2 && s[i-1] == ' ' && isLetter(s[i-2]) { // "Erik, Amy" is a list, no heading
		b := i - 2
		for b > 0 && isLetter(s[b-1]) {
			b--
		}
		if isUpper(s[b]) {
			return false
		}
	}
	return true
}

// commentLine reports whether s[i] is the first word of a code comment's
// line ("// ", "# ", "* ", "-- ").
func commentLine(s string, i int) bool {
	j := i
	for j > 0 && s[j-1] == ' ' {
		j--
	}
	k := j
	for k > 0 && (s[k-1] == '/' || s[k-1] == '#' || s[k-1] == '*' || s[k-1] == '-') {
		k--
	}
	return k < j && (k == 0 || s[k-1] == '\n' || s[k-1] == ' ' || s[k-1] == '\t')
}

// foreignName: a run no list knows with an initial in the middle ("Ravil
// G Yefimov") or letters beyond ASCII ("Šárka Ottová"), no word of it an
// ordinary one.
func foreignName(s string, ws []nameWord) bool {
	wide, initial := false, false
	for k, w := range ws {
		switch {
		case w.initial || w.end-w.start == 1 && k > 0 && k < len(ws)-1:
			initial = true
		case w.particle:
		case w.flags&wWord != 0:
			return false
		default:
			for j := w.start; j < w.end; j++ {
				if s[j] >= 0x80 {
					wide = true
				}
			}
		}
	}
	return wide || initial
}

// camel: a word with an upper-case letter after its first that no name
// spelling explains ("FileLess", "NaN", "AIza"; not "McCarthy",
// "MacNamara", "DeShawn").
func camel(s string, w nameWord) bool {
	if w.initial || upperWord(s, w) {
		return false
	}
	for j := w.start + 1; j < w.end; j++ {
		if isUpper(s[j]) {
			p := s[w.start:j]
			if p != "Mc" && p != "Mac" && p != "De" && p != "Di" && p != "La" && p != "Le" && s[j-1] != '\'' && s[j-1] != '-' {
				return true
			}
		}
	}
	return false
}

// verbsAfter follow a person's name standing alone ("Jennifer is",
// "Scott had given", "Leif, can you").
var verbsAfter = setOf(`is was has had said says will would can could wrote writes asked asks told tells called
calls lives lived works worked thinks thought spent shouted replied added sent sends did does just also and
went goes came comes knows knew wants wanted needs needed`)

// verbAfter reports whether the word after s[end] is one of verbsAfter,
// or a vocative comma follows ("Leif, can I").
func verbAfter(s string, end int) bool {
	if end < len(s) && s[end] == ',' {
		return end+1 < len(s) && s[end+1] == ' '
	}
	if end+1 >= len(s) || s[end] != ' ' {
		return false
	}
	e := end + 1
	for e < len(s) && s[e] >= 'a' && s[e] <= 'z' {
		e++
	}
	return verbsAfter[s[end+1:e]]
}

// sentenceStart reports whether s[i] starts a sentence: nothing, or the
// end of one, before it.
func sentenceStart(s string, i int) bool {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '"') {
		j--
	}
	return j == 0 || strings.IndexByte(".!?\n", s[j-1]) >= 0
}

// placeFirst start the names of places ("San Francisco", "Fort Worth",
// "French Guiana" is caught by its ordinary first word), never a person's.
var placeFirst = setOf(`san santa santo saint sainte st fort port mount lake new north south east west los las el`)

// givenOnly: a given name (a surname too, maybe) no list calls an
// ordinary word or a product.
func givenOnly(f uint8) bool { return f&wGiven != 0 && f&(wWord|wStop) == 0 }

// listed: a given name in a list of given names ("Romi, Erik, Amy and
// Kristen"): the item before or after it is a given name too. With
// loose unset (the name is a surname too, "Amy") that neighbour must be
// no surname: "Owens, Duran and Oneal" is a firm.
func listed(s string, i, end int, loose bool) bool {
	near := func(f uint8) bool { return f == wGiven || loose && givenOnly(f) }
	for _, sep := range []string{", ", " and "} {
		if strings.HasPrefix(s[end:], sep) {
			j := end + len(sep)
			if e := nameWordEnd(s, j); e > j && capitalAt(s, j) && near(lexOf(s[j:e])) {
				return true
			}
		}
		if b := i - len(sep); b > 0 && s[b:i] == sep {
			a := b
			for a > 0 && isLetter(s[a-1]) {
				a--
			}
			if a < b && capitalAt(s, a) && near(lexOf(s[a:b])) {
				return true
			}
		}
	}
	return false
}

// possessive reports whether "'s" and a word for a relative, a friend
// or a colleague follow s[end] ("Asya's kid", "Amanda's daughter"; not
// "Macy's stores").
func possessive(s string, end int) bool {
	rest := s[end:]
	switch {
	case strings.HasPrefix(rest, "'s "):
		rest = rest[3:]
	case strings.HasPrefix(rest, "’s "):
		rest = rest[len("’s "):]
	default:
		return false
	}
	e := 0
	for e < len(rest) && rest[e] >= 'a' && rest[e] <= 'z' {
		e++
	}
	return relatives[rest[:e]]
}

// relatives are the words after a person's "'s" that make it one.
var relatives = setOf(`kid kids child children son sons daughter daughters wife husband partner mother father mom
dad mum parents brother brothers sister sisters uncle aunt cousin grandmother grandfather grandson granddaughter
niece nephew family friend friends boyfriend girlfriend fiance fiancee boss manager colleague assistant widow`)

// surnameAfterUnknown: two words, the first no list knows (a given name
// the US lists lack, "Vilmer", "Duqyaha"), the second a surname (Census)
// or of a surname's shape ("Karataev", "Arvidsson"), neither an ordinary
// word.
func surnameAfterUnknown(s string, ws []nameWord) bool {
	if len(ws) != 2 {
		return false
	}
	first, last := ws[0], ws[1]
	if first.flags != 0 || first.initial || first.particle || first.end-first.start < 3 || last.flags&(wWord|wStop) != 0 || last.initial {
		return false
	}
	return last.flags&wSurname != 0 || surnameShape(s[last.start:last.end])
}

// surnameSuffixes end surnames of many languages and few other words:
// Nordic, Slavic, Baltic, Caucasian, Greek, Turkish, Romanian, Italian.
var surnameSuffixes = []string{"sson", "sen", "ov", "ova", "ová", "ev", "eva", "ski", "ska", "sky", "ský", "ić", "vić",
	"enko", "escu", "dze", "shvili", "ian", "yan", "oglu", "oğlu", "poulos", "akis", "idis", "berg", "ström",
	"qvist", "gaard", "nen", "ini", "elli", "etti", "ucci", "otti", "dóttir"}

// surnameShape reports whether w ends in one of surnameSuffixes.
func surnameShape(w string) bool {
	if len(w) < 5 {
		return false
	}
	for _, suf := range surnameSuffixes {
		if strings.HasSuffix(w, suf) {
			return true
		}
	}
	return false
}

// speaker: a given name that starts a line and ends in ':' before a
// space or a quote, a transcript's or a chat's speaker ("Nicole: Remember
// me?", "Heather:\"Who are you?\""). Only a given name no list calls an
// ordinary word: "Args:", "Note:" and "Mark:" are headings.
func speaker(s string, i int, w nameWord) bool {
	if w.flags&wGiven == 0 || w.flags&(wWord|wStop) != 0 || w.end+1 >= len(s) || s[w.end] != ':' || (s[w.end+1] != ' ' && s[w.end+1] != '"') {
		return false
	}
	return i == 0 || s[i-1] == '\n' || s[i-1] == '>' && (i == 1 || s[i-2] == '\n')
}

// vocative reports whether ", " and a word that starts a request follow
// s[end] ("Leif, can I …", "Cora, please …").
func vocative(s string, end int) bool {
	if !strings.HasPrefix(s[end:], ", ") {
		return false
	}
	j := end + 2
	e := j
	for e < len(s) && isLetter(s[e]) {
		e++
	}
	return requestWords[strings.ToLower(s[j:e])]
}

var requestWords = setOf(`can could would will please do did are is have i you we`)

// relativeBefore reports whether "my kid ", "her brother " and the like
// stand before s[i] ("my son Tomás").
func relativeBefore(s string, i int) bool {
	if i < 4 || s[i-1] != ' ' {
		return false
	}
	b := i - 1
	for b > 0 && s[b-1] >= 'a' && s[b-1] <= 'z' {
		b--
	}
	if !relatives[s[b:i-1]] || b < 3 || s[b-1] != ' ' {
		return false
	}
	a := b - 1
	for a > 0 && isLetter(s[a-1]) {
		a--
	}
	return possessivePronouns[strings.ToLower(s[a:b-1])]
}

var possessivePronouns = setOf(`my his her our their your`)

// reportedBy reports whether a reporting verb stands before the run
// s[i:end] and the clause ends after it ("…," says Okafor." or "said
// Okafor to them").
func reportedBy(s string, i, end int) bool {
	if !(strings.HasSuffix(s[:i], " says ") || strings.HasSuffix(s[:i], " said ")) {
		return false
	}
	return end == len(s) || strings.IndexByte(".,;!?\n", s[end]) >= 0 || strings.HasPrefix(s[end:], " to ")
}
