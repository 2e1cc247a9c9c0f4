package index

// stem reduces an English word to its stem with the Porter algorithm (M.F.
// Porter, "An algorithm for suffix stripping", 1980, following his reference
// C implementation), so "creating", "created" and "creates" meet at "creat".
// Words of three letters or fewer, words with non-ASCII letters or digits,
// and a few words Porter mangles in tool vocabulary ("news" is not "new") are
// left as they are.
func stem(w string) string {
	if len(w) <= 3 {
		return w
	}
	if s, ok := stemException[w]; ok {
		return s
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return w
		}
	}
	p := porter{b: []byte(w), k: len(w) - 1}
	p.step1ab()
	if p.k > 0 {
		p.step1c()
		p.step2()
		p.step3()
		p.step4()
		p.step5()
	}
	return string(p.b[:p.k+1])
}

// stemException lists words whose Porter stem would merge them with an
// unrelated word of tool vocabulary ("news" is not "new", "settings" not
// "set"), with the stem they get instead.
var stemException = map[string]string{
	"news": "news", "series": "series", "species": "species", "canvas": "canvas",
	"atlas": "atlas", "alias": "alias", "aliases": "alias", "bias": "bias", "gas": "gas",
	"always": "always", "https": "http",
	"setting": "setting", "settings": "setting",
	"string": "string", "strings": "string",
	"thing": "thing", "things": "thing",
	"morning": "morning", "evening": "evening",
	"during": "during",
}

// porter holds the word being stemmed: b[0..k]; j marks the end of the stem
// before a matched suffix.
type porter struct {
	b    []byte
	k, j int
}

// cons reports whether b[i] is a consonant.
func (p *porter) cons(i int) bool {
	switch p.b[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !p.cons(i-1)
	}
	return true
}

// m measures the number of vowel-consonant sequences in b[0..j].
func (p *porter) m() int {
	n, i := 0, 0
	for ; ; i++ {
		if i > p.j {
			return n
		}
		if !p.cons(i) {
			break
		}
	}
	i++
	for {
		for ; ; i++ {
			if i > p.j {
				return n
			}
			if p.cons(i) {
				break
			}
		}
		i++
		n++
		for ; ; i++ {
			if i > p.j {
				return n
			}
			if !p.cons(i) {
				break
			}
		}
		i++
	}
}

func (p *porter) vowelInStem() bool {
	for i := 0; i <= p.j; i++ {
		if !p.cons(i) {
			return true
		}
	}
	return false
}

// doublec reports whether b[j-1..j] is a double consonant.
func (p *porter) doublec(j int) bool {
	return j >= 1 && p.b[j] == p.b[j-1] && p.cons(j)
}

// cvc reports whether b[i-2..i] is consonant-vowel-consonant and the last
// consonant is not w, x or y.
func (p *porter) cvc(i int) bool {
	if i < 2 || !p.cons(i) || p.cons(i-1) || !p.cons(i-2) {
		return false
	}
	c := p.b[i]
	return c != 'w' && c != 'x' && c != 'y'
}

// ends reports whether b[0..k] ends with s, and sets j before it.
func (p *porter) ends(s string) bool {
	n := len(s)
	if n > p.k+1 || string(p.b[p.k+1-n:p.k+1]) != s {
		return false
	}
	p.j = p.k - n
	return true
}

// setTo replaces b[j+1..k] with s.
func (p *porter) setTo(s string) {
	p.b = append(p.b[:p.j+1], s...)
	p.k = p.j + len(s)
}

func (p *porter) r(s string) {
	if p.m() > 0 {
		p.setTo(s)
	}
}

// step1ab removes plurals and -ed or -ing.
func (p *porter) step1ab() {
	if p.b[p.k] == 's' {
		switch {
		case p.ends("sses"):
			p.k -= 2
		case p.ends("ies"):
			p.setTo("i")
		case p.b[p.k-1] != 's':
			p.k--
		}
	}
	if p.ends("eed") {
		if p.m() > 0 {
			p.k--
		}
		return
	}
	if !(p.ends("ed") || p.ends("ing")) || !p.vowelInStem() {
		return
	}
	p.k = p.j
	switch {
	case p.ends("at"):
		p.setTo("ate")
	case p.ends("bl"):
		p.setTo("ble")
	case p.ends("iz"):
		p.setTo("ize")
	case p.doublec(p.k):
		p.k--
		if c := p.b[p.k]; c == 'l' || c == 's' || c == 'z' {
			p.k++
		}
	default:
		p.j = p.k
		if p.m() == 1 && p.cvc(p.k) {
			p.setTo("e")
		}
	}
}

// step1c turns a terminal y into i when there is another vowel in the stem.
func (p *porter) step1c() {
	if p.ends("y") && p.vowelInStem() {
		p.b = p.b[:p.k+1]
		p.b[p.k] = 'i'
	}
}

// suffixRule maps a suffix to its replacement.
type suffixRule struct{ suffix, repl string }

var step2Rules = map[byte][]suffixRule{
	'a': {{"ational", "ate"}, {"tional", "tion"}},
	'c': {{"enci", "ence"}, {"anci", "ance"}},
	'e': {{"izer", "ize"}},
	'l': {{"bli", "ble"}, {"alli", "al"}, {"entli", "ent"}, {"eli", "e"}, {"ousli", "ous"}},
	'o': {{"ization", "ize"}, {"ation", "ate"}, {"ator", "ate"}},
	's': {{"alism", "al"}, {"iveness", "ive"}, {"fulness", "ful"}, {"ousness", "ous"}},
	't': {{"aliti", "al"}, {"iviti", "ive"}, {"biliti", "ble"}},
	'g': {{"logi", "log"}},
}

var step3Rules = map[byte][]suffixRule{
	'e': {{"icate", "ic"}, {"ative", ""}, {"alize", "al"}},
	'i': {{"iciti", "ic"}},
	'l': {{"ical", "ic"}, {"ful", ""}},
	's': {{"ness", ""}},
}

// step2 maps double suffixes to single ones (-ization → -ize).
func (p *porter) step2() { p.applyRules(step2Rules[p.b[p.k-1]]) }

// step3 handles -ic-, -full, -ness and the like.
func (p *porter) step3() { p.applyRules(step3Rules[p.b[p.k]]) }

func (p *porter) applyRules(rules []suffixRule) {
	for _, r := range rules {
		if p.ends(r.suffix) {
			p.r(r.repl)
			return
		}
	}
}

var step4Suffixes = map[byte][]string{
	'a': {"al"},
	'c': {"ance", "ence"},
	'e': {"er"},
	'i': {"ic"},
	'l': {"able", "ible"},
	'n': {"ant", "ement", "ment", "ent"},
	'o': {"ion", "ou"},
	's': {"ism"},
	't': {"ate", "iti"},
	'u': {"ous"},
	'v': {"ive"},
	'z': {"ize"},
}

// step4 removes -ant, -ence and the like when the stem is long enough.
func (p *porter) step4() {
	for _, s := range step4Suffixes[p.b[p.k-1]] {
		if !p.ends(s) {
			continue
		}
		if s == "ion" && (p.j < 0 || (p.b[p.j] != 's' && p.b[p.j] != 't')) {
			return
		}
		if p.m() > 1 {
			p.k = p.j
		}
		return
	}
}

// step5 removes a final -e and turns -ll into -l when the stem is long enough.
func (p *porter) step5() {
	p.j = p.k
	if p.b[p.k] == 'e' {
		if a := p.m(); a > 1 || a == 1 && !p.cvc(p.k-1) {
			p.k--
		}
	}
	if p.b[p.k] == 'l' && p.doublec(p.k) && p.m() > 1 {
		p.k--
	}
}
