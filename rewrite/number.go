package rewrite

// Separators seen in a run of digit groups.
const (
	sepSpace = 1 << iota
	sepDash
	sepDot
	sepSlash
	sepNone // a parenthesised group directly followed by digits: "(0)85"
)

const maxGroups = 8

// numRun is a run of digit groups such as "(555) 123-4567" or "10.0.0.1".
type numRun struct {
	start, end int // s[start:end]; end excludes an extension
	g          [maxGroups]struct{ s, e int }
	paren      [maxGroups]bool
	n          int
	seps       uint8
	digits     int
	ext        int // end of an "x123" extension, or 0
}

func (r *numRun) size(k int) int { return r.g[k].e - r.g[k].s }

// sizes reports whether the groups have exactly these lengths.
func (r *numRun) sizes(want ...int) bool {
	if r.n != len(want) {
		return false
	}
	for k, w := range want {
		if r.size(k) != w {
			return false
		}
	}
	return true
}

// cuts returns where the groups break the run, in digits from its start.
func (r *numRun) cuts() []int {
	out := make([]int, 0, r.n)
	n := 0
	for k := 0; k < r.n-1; k++ {
		n += r.size(k)
		out = append(out, n)
	}
	return out
}

// digitString writes the run's digits to buf (a bracketed group may hold
// a separator: "(06 1)").
func (r *numRun) digitString(s string, buf []byte) []byte {
	buf = buf[:0]
	for k := 0; k < r.n; k++ {
		for i := r.g[k].s; i < r.g[k].e; i++ {
			if isDigit(s[i]) {
				buf = append(buf, s[i])
			}
		}
	}
	return buf
}

// parseRun reads digit groups from s[i] (a digit or '('). It returns false
// for text that cannot be a value; r.end is then still where to resume.
func parseRun(s string, i int, r *numRun) bool {
	*r = numRun{start: i}
	j := i
	for {
		paren := false
		if j < len(s) && s[j] == '(' {
			paren = true
			j++
		}
		g := j
		for j < len(s) && isDigit(s[j]) && j-g < 20 {
			j++
		}
		if j == g || j-g >= 20 {
			r.end = max(j, i+1)
			return false
		}
		inner := 0 // digits of a bracketed trunk and area code: "(06 1)", "(0-312)"
		if paren {
			for j+1 < len(s) && (s[j] == ' ' || s[j] == '-') && isDigit(s[j+1]) && j-g < 8 {
				j++
				inner++
				for j < len(s) && isDigit(s[j]) && j-g < 8 {
					j++
				}
			}
			if j >= len(s) || s[j] != ')' {
				r.end = j
				return false
			}
		}
		if r.n == maxGroups {
			r.end = skipWord(s, j)
			return false
		}
		r.g[r.n].s, r.g[r.n].e, r.paren[r.n] = g, j, paren
		r.n++
		r.digits += j - g - inner
		if paren {
			j++
			if j < len(s) && isDigit(s[j]) {
				r.seps |= sepNone
				continue
			}
		}
		if j+1 < len(s) && (isDigit(s[j+1]) || s[j+1] == '(' && j+2 < len(s) && isDigit(s[j+2])) {
			if m := sepBit(s[j]); m != 0 {
				r.seps |= m
				j++
				continue
			}
		}
		break
	}
	r.end = j
	// An extension, "x123", is part of a phone number.
	if j+1 < len(s) && s[j] == 'x' && isDigit(s[j+1]) {
		k := j + 1
		for k < len(s) && isDigit(s[k]) && k-j <= 6 {
			k++
		}
		if k-j <= 6 && (k == len(s) || !wordAt(s, k)) {
			r.ext = k
			return true
		}
	}
	if j < len(s) && wordAt(s, j) {
		r.end = skipWord(s, j)
		return false
	}
	return true
}

// extEnd returns the end of an extension written apart from the phone
// number ending at s[j] (" x123", " ext. 123", " ext 123", "; ext=123"
// is not one), or -1.
func extEnd(s string, j int) int {
	k := j
	if k < len(s) && s[k] == ' ' {
		k++
	}
	switch {
	case k+1 < len(s) && s[k] == 'x' && isDigit(s[k+1]):
		k++
	case k+4 < len(s) && (s[k:k+3] == "ext" || s[k:k+3] == "Ext"):
		k += 3
		if s[k] == '.' {
			k++
		}
		if k < len(s) && s[k] == ' ' {
			k++
		}
	default:
		return -1
	}
	e := k
	for e < len(s) && isDigit(s[e]) && e-k <= 6 {
		e++
	}
	if e == k || e-k > 6 || e < len(s) && wordAt(s, e) {
		return -1
	}
	return e
}

func sepBit(c byte) uint8 {
	switch c {
	case ' ':
		return sepSpace
	case '-':
		return sepDash
	case '.':
		return sepDot
	case '/':
		return sepSlash
	}
	return 0
}

// number classifies the digit run at s[i]: IPv4, US SSN, card, phone. It
// returns the end of what it emitted, or -1 (the caller skips the word).
func (sc *scanner) number(i int) int {
	s, d := sc.s, sc.d
	var r numRun
	if !parseRun(s, i, &r) {
		if r.end > i+1 {
			return r.end // skip the whole compound ("2024-01-15T…")
		}
		return -1
	}
	// "Chrome/99.9.4.19", "Safari/605.1.15", "curl/8.5.0": a product's
	// version (RFC 9110's product token), neither an address nor a
	// number.
	if r.seps == sepDot && productBefore(s, i) {
		return r.end
	}
	// "Jun 06 2026 19:04:31": the last group is the hour of a time.
	if r.n > 1 && r.seps&sepDot == 0 && r.end+1 < len(s) && s[r.end] == ':' && isDigit(s[r.end+1]) && r.ext == 0 {
		return r.end
	}
	plain := !r.paren[0] && r.seps&sepNone == 0
	// An address followed by a number the run took in: "10.0.0.1 10.0.0.2",
	// "client 10.1.2.3 200 OK", "192.168.1.0/24".
	if r.n > 4 && plain && r.ext == 0 && s[r.g[0].e] == '.' && s[r.g[1].e] == '.' && s[r.g[2].e] == '.' && s[r.g[3].e] != '.' &&
		!r.paren[1] && !r.paren[2] && !r.paren[3] && !r.paren[4] {
		four := r
		four.n, four.end, four.seps = 4, r.g[3].e, sepDot
		if ipv4(groupStrings(s, &four)) && !(d.on[kPhone] && phoneLabel(s, i)) {
			sc.emitIPv4(i, &four)
			return four.end
		}
	}
	if r.ext == 0 && plain {
		if r.seps == sepDot && r.n == 4 {
			// Four dotted numbers right after a phone word are a phone
			// number ("Telefon: 90.11.23.66"), not an address; so are
			// those a phone word names from further away ("text me at
			// 70.123.45.67") when libphonenumber calls them a number.
			if ipv4(groupStrings(s, &r)) && !(d.on[kPhone] && (phoneLabel(s, i) || sc.dottedPhone(&r))) {
				sc.emitIPv4(i, &r)
				return r.end
			}
			// Four dotted groups that are no address may be a phone
			// number ("01.23.45.6789", "tel 810.12.34.56"), not a
			// version ("release 19.18.217.2341").
			if versionBefore(s, i) || hintHas(sc.hint, versionWord) || s[i] != '0' && !phoneLabel(s, i) && !sc.phoneContext(i, r.end) {
				return r.end
			}
		}
		if end, stop := sc.ssnOrCard(i, &r, false); end > 0 || stop {
			return r.end
		}
	}
	if d.on[kPhone] && sc.phone(&r) {
		end := r.end
		if r.ext > 0 {
			end = r.ext
		}
		if r.ext == 0 {
			if e := extEnd(s, end); e > 0 {
				end = e
			}
		}
		// A '+' the international check refused (a length the country
		// does not use) still belongs to the number the words name.
		start := i
		if i > 0 && s[i-1] == '+' && (i < 2 || !isAlnum(s[i-2])) {
			start--
		}
		sc.emit(start, end, TypePhone)
		return end
	}
	// A card or an SSN followed by a number the run took in: "4111…1111
	// 123", "5555 5555 5555 4444 12/26", "536-22-1234 1985".
	if r.ext == 0 && plain && r.n > 1 && (d.on[kCard] || d.on[kSSN]) {
		for k := r.n - 1; k >= 1; k-- {
			if c := s[r.g[k-1].e]; c != ' ' && c != '/' {
				continue
			}
			var p numRun
			if !prefixRun(s, &r, k, &p) {
				continue
			}
			if end, _ := sc.ssnOrCard(i, &p, true); end > 0 {
				return end
			}
		}
	}
	return r.end
}

// prefixRun sets p to the first k groups of r; false when one of them
// is bracketed.
func prefixRun(s string, r *numRun, k int, p *numRun) bool {
	*p = numRun{start: r.start, n: k, end: r.g[k-1].e}
	for j := 0; j < k; j++ {
		if r.paren[j] {
			return false
		}
		p.g[j] = r.g[j]
		p.digits += r.size(j)
		if j > 0 {
			p.seps |= sepBit(s[r.g[j-1].e])
		}
	}
	return true
}

// ssnOrCard emits an SSN or a card number that r is, and returns its end;
// stop reports a dashed 3-2-4 run that breaks the SSA's rules, which is
// no phone number either. A cut run (cut) is a card only with a brand's
// own length: "5555 3412 4444" cut from "5555 3412 4444 1118" is not.
func (sc *scanner) ssnOrCard(i int, r *numRun, cut bool) (end int, stop bool) {
	s, d := sc.s, sc.d
	if r.seps == sepDash && r.sizes(3, 2, 4) {
		if d.on[kSSN] && ssn(s[r.g[0].s:r.g[0].e], s[r.g[1].s:r.g[1].e], s[r.g[2].s:r.g[2].e]) {
			sc.emit(i, r.end, TypeUSSSN)
			return r.end, false
		}
		return -1, true
	}
	// "078051120" and "078 05 1120" are SSNs when a word says so.
	if d.on[kSSN] && r.digits == 9 && (r.n == 1 || r.seps == sepSpace && r.sizes(3, 2, 4)) && sc.context(i, r.end, ssnWord) {
		var b [9]byte
		v := r.digitString(s, b[:0])
		if ssn(string(v[:3]), string(v[3:5]), string(v[5:])) {
			sc.emit(i, r.end, TypeUSSSN)
			return r.end, false
		}
	}
	if d.on[kCard] && cardGroups(r) {
		// A brand's range and length; or, where a word such as "card"
		// says so, any Luhn-valid number (a brand this table does not
		// know, or a Maestro number shorter than the table's 16 digits).
		var buf [48]byte
		if dg := r.digitString(s, buf[:0]); card(dg) || !cut && luhn(dg) && sc.context(i, r.end, cardWord) {
			sc.emit(i, r.end, TypeCreditCard)
			return r.end, false
		}
	}
	return -1, false
}

// emitIPv4 emits the address r, unless it is a version ("v1.2.3.4", under a
// "version" key), 0.0.0.0 or a netmask (255.255.255.0): those name no host.
func (sc *scanner) emitIPv4(i int, r *numRun) {
	s := sc.s
	if sc.d.on[kIP] && !versionBefore(s, i) && !hintHas(sc.hint, versionWord) && s[i:r.g[0].e] != "255" && s[i:r.end] != "0.0.0.0" {
		sc.emit(i, r.end, TypeIPAddress)
	}
}

// dottedPhone: four dotted groups of two digits or more, eight digits or
// more, that a phone word names and that are a valid national number of
// one of the common regions.
func (sc *scanner) dottedPhone(r *numRun) bool {
	if r.digits < 8 {
		return false
	}
	for k := 0; k < r.n; k++ {
		if r.size(k) < 2 {
			return false
		}
	}
	if !sc.phoneContext(r.start, r.end) || !sc.lib() {
		return false
	}
	var buf [48]byte
	return validNational(r.digitString(sc.s, buf[:0]), libRegions)
}

func groupStrings(s string, r *numRun) []string {
	out := make([]string, r.n)
	for k := 0; k < r.n; k++ {
		out[k] = s[r.g[k].s:r.g[k].e]
	}
	return out
}

// versionWord: a word (or a JSON key's word) that makes four numbers a
// version. A key named "v" says nothing: "v=203.0.113.9" is an address.
func versionWord(w string) bool {
	return w == "version" || w == "ver" || w == "release" || w == "build"
}

// versionBefore reports "v1.2.3.4" / "V 1.2.3.4" / "version 1.2.3.4" /
// "ver. 1.2.3.4".
func versionBefore(s string, i int) bool {
	if i > 0 && (s[i-1] == 'v' || s[i-1] == 'V') || i > 1 && s[i-1] == ' ' && (s[i-2] == 'v' || s[i-2] == 'V') {
		return i < 2 || !isLetter(s[i-2]) || s[i-1] == ' ' && (i < 3 || !isLetter(s[i-3]))
	}
	return versionWord(lastWord(s, i, 12))
}

// productBefore reports a product token right before s[i]: "Name/" where
// the name (letters first, then letters, digits, '-', '_' or '.') starts
// the text or follows white space, '(' or ';' ("Mozilla/5.0 (…) Chrome/…"),
// not a path's segment ("/hosts/10.0.0.1").
func productBefore(s string, i int) bool {
	if i < 2 || s[i-1] != '/' {
		return false
	}
	k := i - 1
	for k > 0 && i-k < 32 && (isAlnum(s[k-1]) || s[k-1] == '-' || s[k-1] == '_' || s[k-1] == '.') {
		k--
	}
	if k == i-1 || !isLetter(s[k]) {
		return false
	}
	return k == 0 || s[k-1] == ' ' || s[k-1] == '(' || s[k-1] == ';' || s[k-1] == '\t'
}

// lastWord returns the lower-cased word that ends just before s[i]
// (skipping up to a few spaces and punctuation), looking back at most n bytes.
func lastWord(s string, i, n int) string {
	j := i
	for j > 0 && i-j < 4 && !isAlnum(s[j-1]) {
		j--
	}
	k := j
	for k > 0 && j-k < n && (isLetter(s[k-1]) || s[k-1] >= 0x80) {
		k--
	}
	var b [24]byte
	if j-k > len(b) {
		return ""
	}
	for x := k; x < j; x++ {
		b[x-k] = lower(s[x])
	}
	return string(b[:j-k])
}

// ssn applies the Social Security Administration's rules: area not 000,
// 666 or 900-999; group not 00; serial not 0000.
func ssn(area, group, serial string) bool {
	if area == "000" || area == "666" || area[0] == '9' || group == "00" || serial == "0000" {
		return false
	}
	return true
}

// cardGroups: one block of digits, or groups of four separated by one kind
// of separator (the last group may be shorter), or Amex's 4-6-5.
func cardGroups(r *numRun) bool {
	if r.digits < 12 || r.digits > 19 {
		return false
	}
	if r.n == 1 {
		return true
	}
	if r.seps != sepSpace && r.seps != sepDash {
		return false
	}
	if r.sizes(4, 6, 5) || r.sizes(4, 6, 4) {
		return true
	}
	for k := 0; k < r.n-1; k++ {
		if r.size(k) != 4 {
			return false
		}
	}
	return r.size(r.n-1) <= 4
}

// card checks the brand (issuer prefix and length) and the Luhn checksum.
func card(d []byte) bool {
	return brand(d) && luhn(d)
}

func luhn(d []byte) bool {
	sum, dbl := 0, false
	for k := len(d) - 1; k >= 0; k-- {
		v := int(d[k] - '0')
		if dbl {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		dbl = !dbl
	}
	return sum%10 == 0
}

// brand: the issuer identification ranges of the major networks, with
// their lengths.
func brand(d []byte) bool {
	n := len(d)
	p := func(k int) int { // the first k digits as a number
		v := 0
		for x := 0; x < k; x++ {
			v = v*10 + int(d[x]-'0')
		}
		return v
	}
	in := func(lo, hi int) bool { return n >= lo && n <= hi }
	p2, p3, p4, p6 := p(2), p(3), p(4), p(6)
	switch {
	case d[0] == '4': // Visa
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return n == 16
	case p2 == 34 || p2 == 37: // American Express
		return n == 15
	case p4 == 6011, p3 >= 644 && p3 <= 649, p2 == 65, p6 >= 622126 && p6 <= 622925: // Discover
		return in(16, 19)
	case p2 == 35: // JCB (assigned 3528-3589; generators use all of 35)
		return in(16, 19)
	case p4 == 1800 || p4 == 2131: // JCB (old)
		return n == 15
	case p3 >= 300 && p3 <= 305, p2 == 36, p2 == 38, p2 == 39, p4 == 3095: // Diners Club
		return in(14, 19)
	case p2 == 62: // UnionPay
		return in(16, 19)
	case p2 == 50, p2 >= 56 && p2 <= 69: // Maestro
		// Issued with 12 to 19 digits, but those under 16 are rare, and
		// one numeric string in ten of that length in these ranges passes
		// Luhn: they count only after a card word (the caller's rule for
		// brands this table does not know).
		return in(16, 19)
	case p4 >= 2200 && p4 <= 2204: // Mir
		return in(16, 19)
	case p2 == 81 || p2 == 82: // RuPay
		return n == 16
	case p4 == 9792: // Troy
		return n == 16
	}
	return false
}
