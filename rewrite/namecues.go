package rewrite

import "strings"

// The name and street cues of structured text: a "Name:" label, a table
// cell under a person's column, an email's display name.

// maxLabelValue bounds the value after a label, in bytes: a name or a
// street line is shorter (hintedSpan refuses longer ones).
const maxLabelValue = 160

// labelValue handles "Name: Jane Doe" and "Address: 1 Main St": a label
// word (or two) at s[i] ending in ':', its value the rest of the line.
// It emits and returns the value's end, or -1.
func (sc *scanner) labelValue(i int) int {
	s := sc.s
	j := i
	for k := 0; k < 3 && j < len(s); k++ {
		e := nameWordEnd(s, j)
		if e == j {
			return -1
		}
		j = e
		if j < len(s) && s[j] == ':' {
			break
		}
		if j+1 >= len(s) || s[j] != ' ' {
			return -1
		}
		j++
	}
	if j >= len(s) || s[j] != ':' || j+1 >= len(s) || s[j+1] != ' ' {
		return -1
	}
	key := s[i:j]
	if normKey(key) == "name" {
		key = "personname" // "Name: Jane Doe"
	}
	vs := j + 2
	ve := strings.IndexByte(s[vs:min(len(s), vs+maxLabelValue)], '\n')
	if ve < 0 {
		ve = min(len(s), vs+maxLabelValue)
	} else {
		ve += vs
	}
	sp, ok := sc.d.hintedSpan(strings.TrimRight(s[vs:ve], "\r"), key)
	if !ok {
		return -1
	}
	sc.emit(vs+sp.Start, vs+sp.End, sp.Type)
	return vs + sp.End
}

// cellValue handles a table cell under a person's or address column: the
// whole cell, from s[i]. It emits and returns the cell's end, or -1.
func (sc *scanner) cellValue(i int) int {
	if sc.oneLine {
		return -1
	}
	h := sc.columnHeader(i)
	if h == "" {
		return -1
	}
	k := normKey(h)
	if k == "name" && sc.personTable() {
		h = "personname"
	}
	tc := &sc.table
	if c := sc.s[i-1]; i > tc.ls && c != tc.sep && c != ' ' && c != '\t' && c != '"' {
		return -1 // not the cell's first word
	}
	stop := tc.sep
	if sc.s[i-1] == '"' {
		stop = '"' // "Doe, Jane"
	}
	e := strings.IndexByte(sc.s[i:tc.le], stop)
	if e < 0 {
		e = tc.le
	} else {
		e += i
	}
	sp, ok := sc.d.hintedSpan(strings.TrimRight(strings.Trim(sc.s[i:e], `"`), "\r"), h)
	if !ok {
		return -1
	}
	sc.emit(i+sp.Start, i+sp.End, sp.Type)
	return i + sp.End
}

// personTable reports whether the current table's header has a column
// only people have (email, phone).
func (sc *scanner) personTable() bool {
	for _, c := range sc.table.cells {
		switch k := normKey(c); {
		case strings.Contains(k, "email"), strings.Contains(k, "phone"), k == "mail", k == "login", k == "username":
			return true
		}
	}
	return false
}

// displayName emits the name before an email in angle brackets
// ("Jane Doe" <jane@x.org>, Jane Doe <jane@x.org>), lt being the '<'.
func (sc *scanner) displayName(lt int) {
	s := sc.s
	e := lt
	for e > 0 && s[e-1] == ' ' {
		e--
	}
	q := e > 0 && s[e-1] == '"'
	if q {
		e--
	}
	b := e
	for b > 0 && b > e-80 {
		c := s[b-1]
		if c == '"' || c == '\n' || c == ',' || c == ':' || c == ';' || c == '<' || c == '>' || c == '[' || c == '{' {
			break
		}
		b--
	}
	for b < e && s[b] == ' ' {
		b++
	}
	last := 0
	if len(sc.out) > 0 {
		last = sc.out[len(sc.out)-1].End
	}
	if b >= e || b < last || !nameShape(s[b:e], true) {
		return
	}
	sc.emit(b, e, TypeName)
}
