package rewrite

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// NAME: a person's name is found where its context says it is one (a JSON
// key or table column such as "full_name" or "Assignee", a "Name:" label,
// an email's display name, a salutation, a title, a signature) and in free
// text as a run of capitalised words that starts with a given name and
// ends with a surname or an unknown capitalised word, ordinary English
// words and product names stopping it (namelists.go).

// personKeys are keys, labels and column headers (lower-case, letters
// only) whose value is a person's name. "name" alone is not one: the JSON
// walk turns it into "personname" where the object is a person's.
var personKeys = setOf(`fullname firstname lastname givenname givennames familyname surname middlename
displayname realname personname contactname customername clientname ownername authorname
sendername recipientname billingname shippingname cardholder cardholdername accountholder
accountholdername employeename patientname membername
author assignee assignees owner requester reporter contact customer sender recipient from to cc bcc
replyto creator createdby updatedby modifiedby manager attendee organizer organiser member signer
approver reviewer committer patient client employee speaker`)

// partKeys hold one part of a name: a single word is enough.
var partKeys = setOf(`firstname lastname givenname givennames familyname surname middlename displayname`)

// addressKeys hold a street line.
var addressKeys = setOf(`line1 addressline1 addressline address1 address street street1 streetaddress streetline
addr billingaddress shippingaddress deliveryaddress mailingaddress postaladdress homeaddress shipto`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// normKey is key lower-cased with everything but ASCII letters and
// digits dropped: "first_name", "firstName" and "First Name" are
// "firstname".
func normKey(key string) string {
	var buf [48]byte
	return string(normKeyTo(&buf, key))
}

// normKeyTo is normKey into buf (no allocation; keys longer than buf are
// cut, and match no set).
func normKeyTo(buf *[48]byte, key string) []byte {
	b := buf[:0]
	// Plain comparisons, not the class table: package variables built
	// with normKey are initialised before that table is.
	for i := 0; i < len(key) && len(b) < len(buf); i++ {
		switch c := key[i]; {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
			b = append(b, c)
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		}
	}
	return b
}

// inSet reports whether the normKey of w is in m, without allocating.
func inSet(m map[string]bool, w string) bool {
	var buf [48]byte
	return m[string(normKeyTo(&buf, w))]
}

// particles are the lower-case words a name may hold between its parts.
var particles = setOf(`van von de da del della der den di du dos das la le bin binti ibn al el ter ten y e zu`)

// nameShape reports whether v looks like a person's name: one to five
// words of letters, each capitalised (or of a script without case), no
// digits or symbols; one word only where single is set or the word is a
// known given name or surname; not only ordinary English words.
func nameShape(v string, single bool) bool {
	if len(v) == 0 || len(v) > 80 {
		return false
	}
	n, known, plain := 0, false, true
	for _, w := range strings.Fields(v) {
		n++
		if n > 5 {
			return false
		}
		first, _ := utf8.DecodeRuneInString(w)
		if unicode.IsLower(first) {
			if !particles[w] {
				return false
			}
			continue
		}
		if !unicode.IsLetter(first) {
			return false
		}
		for _, r := range w {
			if !(unicode.IsLetter(r) || unicode.IsMark(r) || r == '.' || r == '-' || r == '\'' || r == '’' || r == ',') {
				return false
			}
		}
		f := lexOf(strings.Trim(w, ".,"))
		if f&(wGiven|wSurname) != 0 {
			known = true
		}
		if f&wWord == 0 || f&(wGiven|wSurname) != 0 {
			plain = false
		}
		if first < 0x80 && !isUpper(byte(first)) {
			return false
		}
		if first >= 0x80 && !unicode.IsUpper(first) && unicode.IsLower(unicode.ToLower(first)) && unicode.ToLower(first) != first {
			return false
		}
	}
	if n == 0 || plain || n == 1 && strings.ToUpper(v) == v && !caseless(v) {
		return false // nothing, ordinary words, or one word in capitals ("HTML")
	}
	return n > 1 || single || known || caseless(v)
}

// caseless reports whether v is written in a script without letter case
// (CJK, Arabic, Hebrew, Devanagari, Thai, …).
func caseless(v string) bool {
	r, _ := utf8.DecodeRuneInString(v)
	return r >= 0x80 && unicode.IsLetter(r) && !unicode.IsUpper(r) && !unicode.IsLower(r)
}

// maxHinted bounds a value that its key alone makes a name or a street
// line, in bytes.
const maxHinted = 160

// hintedSpan returns the span a value gets from its key alone: the whole
// value (spaces trimmed) as NAME under a person's key, as ADDRESS under an
// address key when it looks like a street line.
func (d *Detector) hintedSpan(s, key string) (Span, bool) {
	// Names start capitalised (or in a script without case), street
	// lines with a digit or a capital: most values are neither.
	if key == "" || s == "" || !d.on[kName] && !d.on[kAddr] || len(s) > maxHinted {
		return Span{}, false
	}
	if c := s[0]; c < 0x80 && !isUpper(c) && !isDigit(c) && c != ' ' {
		return Span{}, false
	}
	var buf [48]byte
	k := normKeyTo(&buf, key)
	person, addr := personKeys[string(k)], addressKeys[string(k)]
	if !person && !addr {
		return Span{}, false
	}
	a := len(s) - len(strings.TrimLeft(s, " \t"))
	b := len(strings.TrimRight(s, " \t"))
	if a >= b {
		return Span{}, false
	}
	v := s[a:b]
	switch {
	case d.on[kName] && person && nameShape(v, partKeys[string(k)]):
		return Span{Start: a, End: b, Type: TypeName}, true
	case d.on[kAddr] && addr && streetShape(v):
		return Span{Start: a, End: a + streetLineEnd(v), Type: TypeAddress}, true
	}
	return Span{}, false
}

// streetShape: a street line under an address key holds a number and a
// word, no '@' or URL, and is not a whole address block.
func streetShape(v string) bool {
	if len(v) > 120 || strings.ContainsAny(v, "@\n") || strings.Contains(v, "://") {
		return false
	}
	digit, letter := false, false
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case unicode.IsLetter(r):
			letter = true
		}
	}
	return digit && letter && (strings.IndexByte(v, ' ') > 0 || caseless(v) || !isDigit(v[0]))
}

// maxNameWord bounds a word of a name, in bytes: a longer run of letters
// is none, and is read no further (hostile text stays linear).
const maxNameWord = 48

// nameWordEnd returns the end of the name word at s[i] (letters, marks,
// inner '-' and '\”), i when there is none.
func nameWordEnd(s string, i int) int {
	j := i
	for j < len(s) {
		if j-i > maxNameWord {
			return i // no word of a name is this long
		}
		c := s[j]
		if c < 0x80 {
			if isLetter(c) {
				j++
				continue
			}
			if (c == '-' || c == '\'') && j > i && j+1 < len(s) && isLetter(s[j+1]) && !(c == '\'' && s[j+1] == 's' && (j+2 == len(s) || !isLetter(s[j+2]))) {
				j++
				continue
			}
			return j
		}
		r, size := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsLetter(r) && !unicode.IsMark(r) {
			return j
		}
		j += size
	}
	return j
}

// capitalAt reports whether s[i] starts an upper-case letter.
func capitalAt(s string, i int) bool {
	if c := s[i]; c < 0x80 {
		return isUpper(c)
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsUpper(r)
}

// streetLineEnd cuts a street line before a ", City" that follows it,
// keeping ", Apt 5" and "Flat 3, 45 Victoria Road".
func streetLineEnd(v string) int {
	for i := 0; i+2 < len(v); i++ {
		if v[i] != ',' || v[i+1] != ' ' {
			continue
		}
		w := nextWord(v, i+2)
		if !isDigit(v[i+2]) && !unitWords[w] && v[i+2] != '#' && strings.ContainsAny(v[:i], "0123456789") {
			return i
		}
	}
	return len(v)
}
