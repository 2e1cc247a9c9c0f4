package rewrite

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/toolfold/toolfold/internal/third_party/phonenumbers"
)

// region is how a country writes national phone numbers: with a trunk '0'
// and a total number of digits (trunk included) between min and max, or
// (trunk false) a fixed set of leading digits and a length; NANP is the
// North American plan (NXX-NXX-XXXX).
type region struct {
	trunk    bool
	nanp     bool
	min, max int
	lead     string // allowed first digits when !trunk
}

var regions = map[string]region{
	"US": {nanp: true}, "CA": {nanp: true},
	"GB": {trunk: true, min: 10, max: 11}, "DE": {trunk: true, min: 6, max: 13},
	"FR": {trunk: true, min: 10, max: 10}, "NL": {trunk: true, min: 10, max: 10},
	"BE": {trunk: true, min: 9, max: 10}, "CH": {trunk: true, min: 10, max: 10},
	"AT": {trunk: true, min: 5, max: 13}, "IT": {trunk: true, min: 6, max: 11},
	"IE": {trunk: true, min: 7, max: 10}, "AU": {trunk: true, min: 10, max: 10},
	"NZ": {trunk: true, min: 8, max: 10}, "JP": {trunk: true, min: 10, max: 11},
	"SE": {trunk: true, min: 7, max: 10}, "FI": {trunk: true, min: 6, max: 11},
	"BR": {trunk: true, min: 10, max: 12}, "IN": {trunk: true, min: 11, max: 11},
	"HU": {trunk: true, min: 8, max: 11}, "CZ": {min: 9, max: 9, lead: "2345679"},
	"ES": {min: 9, max: 9, lead: "6789"}, "PL": {min: 9, max: 9, lead: "1234567890"},
	"DK": {min: 8, max: 8, lead: "2345678"}, "NO": {min: 8, max: 8, lead: "2345789"},
	"PT": {min: 9, max: 9, lead: "29"},
}

// PhoneRegions lists the region codes with national formats: every
// region libphonenumber knows (a few also have hand-written formats).
func PhoneRegions() []string {
	out := make([]string, 0, 256)
	for r := range phonenumbers.GetSupportedRegions() {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// regionSet holds the configured regions: their hand-written formats, and
// their codes for libphonenumber (phonelib.go), which knows every region.
type regionSet struct {
	list  []region
	codes []string
}

func (rs *regionSet) add(code string) error {
	code = strings.ToUpper(code)
	r, ok := regions[code]
	if !ok && !phonenumbers.GetSupportedRegions()[code] {
		return fmt.Errorf("phone region %q is not known; use one of the ISO 3166 codes libphonenumber knows, such as US, GB or DE (international +CC numbers are found in every region)", code)
	}
	if ok {
		rs.list = append(rs.list, r)
	}
	rs.codes = append(rs.codes, code)
	return nil
}

// phone decides whether a digit run is a phone number: a national format
// of a configured region, or any plausible grouping introduced by a word
// such as "phone", "fax" or "call" (or found under such a JSON key).
func (sc *scanner) phone(r *numRun) bool {
	s := sc.s
	var buf [48]byte
	d := r.digitString(s, buf[:0])
	if r.digits < 5 || r.digits > 18 || dateLike(s, r) {
		return false
	}
	if r.digits < 7 {
		// The smallest countries' numbers ("Tel: 51234", "phone 71 225")
		// only right after a phone word or under a phone key.
		// Not after a verb: "call 20000 times", "ring 12345".
		w := lastWord(s, r.start, 16)
		return r.seps&sepSlash == 0 && (strongWord(w) && !phoneVerbs[w] || sc.hinted(r.start, strongWord))
	}
	if r.seps&sepSlash != 0 {
		// "Tel. 030/1234567": one slash after a trunk-'0' area code, and
		// a word saying it is a phone number; other slashes are dates
		// and fractions.
		return r.n >= 2 && s[r.g[0].e] == '/' && strings.IndexByte(s[r.g[1].s:r.end], '/') < 0 &&
			d[0] == '0' && d[1] != '0' && r.size(0) >= 3 && r.size(0) <= 5 && r.digits >= 8 && r.digits <= 12 &&
			sc.phoneContext(r.start, r.end)
	}
	w := lastWord(s, r.start, 12)
	if dateWord(w) || idWords[w] && !sc.phoneContext(r.start, r.end) {
		return false
	}
	// Dialled from abroad: "00 44 20 7946 0018", "011 49 30 123456".
	if p := s[r.g[0].s:r.g[0].e]; r.n >= 3 && (p == "00" || p == "011") && d[len(p)] != '0' {
		if rest := d[len(p):]; len(rest) >= 8 && len(rest) <= 15 && possibleIntl(rest) {
			return true
		}
	}
	if r.digits > 15 {
		return false
	}
	for _, rg := range sc.d.regions.list {
		if rg.nanp && nanp(s, r, d) {
			return true
		}
		if !rg.nanp && r.n >= 2 && national(rg, r, d) {
			return true
		}
	}
	grouped := !(r.n == 1 && r.digits > 12)
	for k := 0; k < r.n; k++ {
		if r.size(k) < 2 && !r.paren[k] {
			grouped = false
		}
	}
	// A configured region's number that libphonenumber calls valid,
	// printed in groups.
	if grouped && r.n >= 2 && len(sc.d.regions.codes) > 0 && sc.lib() && validPrint(d, r.cuts(), sc.d.regions.codes) {
		return true
	}
	if sc.phoneContext(r.start, r.end) {
		if grouped {
			return true
		}
		// "0049 30 123456", "00389 2 975 1108" after a word: dialled
		// from abroad, the prefix glued to the country code.
		if d[0] == '0' && d[1] == '0' && d[2] != '0' && possibleIntl(d[2:]) {
			return true
		}
		// Other groupings ("8 (912) 345-66-93", "1800.1.234.5678") need
		// eight digits and the library.
		return r.digits >= 8 && sc.lib() && validNational(d, libRegions)
	}
	// No word, no configured region: a number printed the national way,
	// a trunk '0' (or an area code in brackets) and three groups or more,
	// or two of which the second has five digits or more ("030 123456",
	// "(0642) 1393573", not "03262 2437 Main St"), that is valid in one of
	// the common regions.
	// Dotted, it has nine digits or more ("01.02.03.04" is no number).
	if grouped && (r.n >= 3 || r.n == 2 && r.size(1) >= 5 && r.digits >= 9 && (!r.paren[0] || d[0] == '0')) && (r.seps&sepDot == 0 || r.digits >= 9) && (d[0] == '0' && d[1] != '0' || r.paren[0]) && sc.lib() && validNational(d, libRegions) {
		return true
	}
	// A trunk digit before an area code in brackets: "8 (930) 641-40-92".
	if r.n >= 3 && r.size(0) == 1 && r.paren[1] && !r.paren[0] && r.size(1) >= 2 && r.size(1) <= 5 && r.digits >= 9 && sc.lib() && validNational(d, libRegions) {
		return true
	}
	return false
}

// maxLibChecks bounds the national-number checks per text: each asks
// libphonenumber about many regions, and hostile text must stay linear.
const maxLibChecks = 64

// lib spends one library check of the scan's budget.
func (sc *scanner) lib() bool {
	sc.libChecks++
	return sc.libChecks <= maxLibChecks
}

// nanp: [1-|001-]NXX-NXX-XXXX with one kind of separator, or (NXX) NXX-XXXX.
func nanp(s string, r *numRun, d []byte) bool {
	first := 0
	if r.n == 4 && (r.size(0) == 1 && d[0] == '1' || r.size(0) == 3 && string(d[:3]) == "001") {
		first = 1
	}
	if r.n-first != 3 || r.size(first) != 3 || r.size(first+1) != 3 || r.size(first+2) != 4 {
		return false
	}
	a, x := s[r.g[first].s], s[r.g[first+1].s]
	if a < '2' || x < '2' {
		return false
	}
	if r.paren[first] {
		// "(415) 555-0132", "1 (415) 555-0132"
		return !r.paren[first+1] && !r.paren[first+2] && (first == 0 || r.seps&(sepDot|sepSlash|sepNone) == 0)
	}
	return r.seps == sepDash || r.seps == sepDot || r.seps == sepSpace
}

// national: a trunk-'0' number of the region's length, or a fixed-length
// number with the region's leading digits, printed in groups of two or more.
func national(rg region, r *numRun, d []byte) bool {
	n := len(d)
	if n < rg.min || n > rg.max {
		return false
	}
	for k := 0; k < r.n; k++ {
		if r.size(k) < 2 {
			return false
		}
	}
	if rg.trunk {
		return d[0] == '0' && d[1] != '0'
	}
	return strings.IndexByte(rg.lead, d[0]) >= 0
}

// dateLike: 2024-01-15, 15.01.2024, 01/15/2024 and the like.
func dateLike(s string, r *numRun) bool {
	if r.n < 3 {
		return false
	}
	v := func(k int) int {
		x := 0
		for i := r.g[k].s; i < r.g[k].e; i++ {
			x = x*10 + int(s[i]-'0')
		}
		return x
	}
	year := func(k int) bool { return r.size(k) == 4 && v(k) >= 1900 && v(k) <= 2100 }
	small := func(k, hi int) bool { return r.size(k) <= 2 && v(k) >= 1 && v(k) <= hi }
	if year(0) && small(1, 12) && small(2, 31) {
		return true
	}
	return year(2) && small(0, 31) && small(1, 31)
}

// intlPhone parses "+CC …" at s[i]: 7 to 15 digits (a "(0)" trunk group
// not counted), groups of digits separated by one space, '-' or '.', and
// at most one '/' after the area code ("+36 20/986-4112").
func (sc *scanner) intlPhone(i int) int {
	s := sc.s
	if i+1 >= len(s) || !isDigit(s[i+1]) || s[i+1] == '0' {
		return -1
	}
	return intlRun(s, i+1, nil, 1)
}

// intlParen parses "(+CC) …" at s[i] ("(+62) 812 3456 789"): the country
// code in brackets, then the national number as after "+CC ".
func (sc *scanner) intlParen(i int) int {
	s := sc.s
	j := i + 2
	for j < len(s) && isDigit(s[j]) && j-i-2 < 3 {
		j++
	}
	if j == i+2 || s[i+2] == '0' || j+2 >= len(s) || s[j] != ')' {
		return -1
	}
	k := j + 1
	if s[k] == ' ' || s[k] == '-' {
		k++
	}
	if !isDigit(s[k]) && s[k] != '(' {
		return -1
	}
	return intlRun(s, k, []byte(s[i+2:j]), 0)
}

// intlRun checks the digit groups at s[i], after the country code cc
// when that is apart from them; a '/' may follow group slash only.
func intlRun(s string, i int, cc []byte, slash int) int {
	var r numRun
	if !parseRun(s, i, &r) {
		return -1
	}
	if r.seps&sepSlash != 0 && (r.n < slash+2 || s[r.g[slash].e] != '/' || strings.IndexByte(s[r.g[slash+1].s:r.end], '/') >= 0) {
		return -1
	}
	digits := r.digits + len(cc)
	for k := 0; k < r.n; k++ {
		if r.paren[k] && s[r.g[k].s:r.g[k].e] == "0" {
			digits--
		}
	}
	// Seven digits: the smallest countries ("+683 7012", Niue).
	if digits < 7 || digits > 15 {
		return -1
	}
	var buf [48]byte
	d := append(buf[:0], cc...)
	for k := 0; k < r.n; k++ {
		if !(r.paren[k] && s[r.g[k].s:r.g[k].e] == "0") {
			for x := r.g[k].s; x < r.g[k].e; x++ {
				if isDigit(s[x]) { // "(0 30)" holds a space
					d = append(d, s[x])
				}
			}
		}
	}
	if !possibleIntl(d) {
		return -1
	}
	if r.ext > 0 {
		return r.ext
	}
	if e := extEnd(s, r.end); e > 0 {
		return e
	}
	return r.end
}

// Context words for phone numbers. Strong words may sit a few words
// before the number or just after it; labels ("Office: …", "… fax") must
// touch it; weak words count only a few words before it on the same line.
var (
	strongPhoneWords = map[string]bool{
		"phone": true, "phones": true, "telephone": true, "tel": true, "mobile": true, "mob": true,
		"cell": true, "cellphone": true, "fax": true, "call": true, "dial": true, "sms": true,
		"whatsapp": true, "landline": true, "ring": true, "phoned": true, "calling": true,
		"ph": true, "tlf": true, "tfn": true, "gsm": true, "hotline": true, "helpline": true,
		// The same words in the languages of the regions libRegions lists.
		"telefon": true, "telefonnummer": true, "rufnummer": true, "handy": true, "mobil": true,
		"mobilnummer": true, "festnetz": true, "téléphone": true, "tél": true, "portable": true,
		"teléfono": true, "telefono": true, "móvil": true, "movil": true, "celular": true,
		"cellulare": true, "telefone": true, "telemóvel": true, "telefoon": true, "mobiel": true,
		"puhelin": true, "matkapuhelin": true, "telefonu": true, "telefonní": true,
		"телефон": true, "тел": true, "моб": true, "電話": true, "携帯": true, "手机": true, "电话": true,
	}
	phoneVerbs      = map[string]bool{"call": true, "calling": true, "ring": true, "phoned": true, "dial": true}
	labelPhoneWords = map[string]bool{"office": true, "desk": true, "home": true, "work": true, "direct": true,
		"büro": true, "privat": true, "bureau": true, "domicile": true, "oficina": true, "casa": true}
	weakPhoneWords = map[string]bool{
		"message": true, "messages": true, "reach": true, "contact": true, "text": true,
		"kontakt": true, "contacto": true, "contatto": true, "joindre": true,
	}
	ssnWords  = map[string]bool{"ssn": true, "social": true, "security": true, "ss": true}
	cardWords = map[string]bool{"card": true, "cc": true, "credit": true, "debit": true, "visa": true,
		"mastercard": true, "amex": true, "pan": true, "maestro": true, "discover": true, "jcb": true,
		"unionpay": true, "diners": true, "karte": true, "kartennummer": true, "kreditkarte": true,
		"carte": true, "tarjeta": true, "cartão": true, "carta": true}
	// Dates of birth are not phone numbers, however grouped.
	dateWords = map[string]bool{"dob": true, "born": true, "birth": true, "birthday": true, "date": true}
	// A number named by one of these words is an identifier, unless a
	// phone word is near too ("order 0123 4567 8901", "invoice 2024-000123").
	idWords = map[string]bool{"order": true, "invoice": true, "ticket": true, "ref": true, "reference": true,
		"id": true, "account": true, "acct": true, "tracking": true, "sku": true, "serial": true, "case": true,
		"claim": true, "policy": true, "item": true, "no": true, "nr": true, "number": true, "isbn": true,
		"ean": true, "upc": true, "imei": true, "batch": true, "lot": true, "build": true, "version": true}
)

func cardWord(w string) bool { return cardWords[w] }
func dateWord(w string) bool { return dateWords[w] }

func strongWord(w string) bool { return strongPhoneWords[w] }
func labelWord(w string) bool  { return labelPhoneWords[w] || strongPhoneWords[w] }
func weakWord(w string) bool   { return weakPhoneWords[w] || strongPhoneWords[w] }
func ssnWord(w string) bool    { return ssnWords[w] }

// phoneContext looks for the words that make a digit run a phone number.
func (sc *scanner) phoneContext(start, end int) bool {
	if sc.hinted(start, labelWord) {
		return true
	}
	s := sc.s
	if anyWord(s, back(s, start, 48, 1), start, strongWord) || anyWord(s, end, ahead(s, end, 16), strongWord) {
		return true
	}
	// A label touching the number: "Desk: 123 4567", "123 4567 office".
	if w := lastWord(s, start, 12); labelWord(w) && colonBefore(s, start) {
		return true
	}
	k := end
	for k < len(s) && k-end < 3 && (s[k] == ' ' || s[k] == '-' || s[k] == '(') {
		k++
	}
	if k > end && k < len(s) && isLetter(s[k]) && labelWord(firstWord(s, k)) {
		return true
	}
	return anyWord(s, back(s, start, 32, 0), start, weakWord)
}

// phoneLabel: the word right before s[i] is a phone word ("Tel. ",
// "móvil ", "Office: ").
func phoneLabel(s string, i int) bool {
	w := lastWord(s, i, 16)
	return strongWord(w) || labelPhoneWords[w] && colonBefore(s, i)
}

// colonBefore: the text before s[i] ends with ':' and white space.
func colonBefore(s string, i int) bool {
	for i > 0 && (s[i-1] == ' ' || s[i-1] == '\n' || s[i-1] == '\t') {
		i--
	}
	return i > 0 && s[i-1] == ':'
}

func firstWord(s string, i int) string {
	j := i
	for j < len(s) && j-i < 16 && isLetter(s[j]) {
		j++
	}
	var b [16]byte
	for k := i; k < j; k++ {
		b[k-i] = lower(s[k])
	}
	return string(b[:j-i])
}

// back returns where a window of at most n bytes before s[i] starts,
// crossing at most lines line breaks.
func back(s string, i, n, lines int) int {
	lo := i
	for lo > 0 && i-lo < n {
		if s[lo-1] == '\n' {
			if lines--; lines < 0 {
				break
			}
		}
		lo--
	}
	return lo
}

// ahead returns the end of a window of at most n bytes after s[i] on the
// same line.
func ahead(s string, i, n int) int {
	hi := i
	for hi < len(s) && hi-i < n && s[hi] != '\n' {
		hi++
	}
	return hi
}

// context reports whether a word accepted by ok appears within a few words
// before s[start:end] or right after it, in the JSON key the text sits
// under, or in the header of its table column.
func (sc *scanner) context(start, end int, ok func(string) bool) bool {
	if sc.hinted(start, ok) {
		return true
	}
	return anyWord(sc.s, back(sc.s, start, 48, 1), start, ok) || anyWord(sc.s, end, ahead(sc.s, end, 16), ok)
}

// hinted reports whether the JSON key the text sits under, or the header
// of the table column s[pos] lies in, has a word accepted by ok.
func (sc *scanner) hinted(pos int, ok func(string) bool) bool {
	if sc.hint != "" && hintHas(sc.hint, ok) {
		return true
	}
	h := sc.columnHeader(pos)
	return h != "" && hintHas(h, ok)
}

// hintHas splits a JSON key into words (at non-letters and camelCase
// humps: "app_version", "phoneNumber") and asks ok about each.
func hintHas(hint string, ok func(string) bool) bool {
	var b [16]byte
	for i := 0; i < len(hint); {
		if !isLetter(hint[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(hint) && isLetter(hint[j]) && !(isUpper(hint[j]) && !isUpper(hint[j-1])) {
			j++
		}
		if j-i <= len(b) {
			for k := i; k < j; k++ {
				b[k-i] = lower(hint[k])
			}
			if ok(string(b[:j-i])) {
				return true
			}
		}
		i = j
	}
	return false
}

// anyWord lower-cases (ASCII only) each letter word of s[lo:hi], letters
// of other scripts included ("Téléphone", "телефон"), and asks ok; a word
// in camelCase ("mobileNumber") is asked about by its parts too. A word
// glued to digits ("tel2") is no word.
func anyWord(s string, lo, hi int, ok func(string) bool) bool {
	var b [24]byte
	for i := lo; i < hi; {
		if !isLetter(s[i]) && s[i] < 0x80 {
			i++
			continue
		}
		j := i
		camel := false
		for j < hi && (isLetter(s[j]) || s[j] >= 0x80) {
			camel = camel || j > i && isUpper(s[j]) && !isUpper(s[j-1])
			j++
		}
		a, e := i, j
		for a < e && s[a] >= 0x80 && !wordAt(s, a) { // "«Tel»": runes that are no letters
			_, size := utf8.DecodeRuneInString(s[a:e])
			a += size
		}
		for e > a && s[e-1] >= 0x80 && !wordBefore(s[:e], e) {
			_, size := utf8.DecodeLastRuneInString(s[a:e])
			e -= size
		}
		whole := (a == 0 || !isDigit(s[a-1])) && (e == len(s) || !isDigit(s[e]))
		if e-a <= len(b) && e > a && whole {
			for k := a; k < e; k++ {
				b[k-a] = lower(s[k])
			}
			if ok(string(b[:e-a])) || camel && hintHas(s[a:e], ok) {
				return true
			}
		}
		i = j
	}
	return false
}
