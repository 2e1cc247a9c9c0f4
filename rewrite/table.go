package rewrite

import "strings"

// Tables: a value in a column whose header names it ("Phone", "Mobile",
// "SSN") has that word as context, as a value under a JSON key does. A
// table here is a block of consecutive lines with the same number of one
// separator: tab, '|' (Markdown) or ',' (CSV, where a comma inside double
// quotes is no separator: "Doe, Jane"); its header is the block's first
// line, and every cell of a header is a few words, no sentence.

// Bounds that keep hostile text linear: lines longer than maxTableLine,
// headers of more than maxTableCols cells and headers further back than
// maxTableLines lines make no table.
const (
	maxTableLine  = 4096
	maxTableLines = 256
	maxTableCols  = 64
)

// tableCache holds what the last lookup learnt: the line it was on, and
// the block (table) that line belongs to with its header's cells.
type tableCache struct {
	ls, le int  // the line's bounds; le == 0: nothing cached
	table  bool // the line is a row below a header
	sep    byte
	seps   int  // separators per line
	pos    int  // the position last asked about on the line
	col    int  // its column
	inq    bool // whether pos is inside double quotes (CSV)
	// The block: its header line's start and cells, and the end of its
	// last line known to belong to it, so the next row need not walk back.
	header, through int
	hsep            byte
	hseps           int
	cells           []string
	spare           []string // headerCells' scratch, kept for reuse
}

// columnHeader returns the header cell of the column s[pos] lies in, or ""
// when s[pos] is in no table, or in its header.
func (sc *scanner) columnHeader(pos int) string {
	tc := &sc.table
	if tc.le == 0 || pos < tc.ls || pos >= tc.le {
		sc.tableLine(pos)
	}
	if !tc.table {
		return ""
	}
	if pos < tc.pos {
		tc.pos, tc.col, tc.inq = tc.ls, 0, false
	}
	n, inq := countSeps(sc.s[tc.pos:pos], tc.sep, tc.inq)
	tc.pos, tc.col, tc.inq = pos, tc.col+n, inq
	if tc.col >= len(tc.cells) {
		return ""
	}
	return tc.cells[tc.col]
}

// countSeps counts the separators in s, a comma inside double quotes not
// counted; inq says whether s starts inside quotes, and the result whether
// it ends inside them.
func countSeps(s string, sep byte, inq bool) (int, bool) {
	if sep != ',' {
		return strings.Count(s, string(sep)), false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			inq = !inq
		case ',':
			if !inq {
				n++
			}
		}
	}
	return n, inq
}

// lineAt returns the bounds of the line holding s[i] (le at its '\n' or
// the end of s), ok false when it is longer than maxTableLine.
func lineAt(s string, i int) (ls, le int, ok bool) {
	lo := max(0, i-maxTableLine)
	ls = strings.LastIndexByte(s[lo:i], '\n') + 1 + lo
	hi := min(len(s), i+maxTableLine)
	le = strings.IndexByte(s[i:hi], '\n')
	if le < 0 {
		le = hi
	} else {
		le += i
	}
	ok = !(ls == lo && lo > 0) && !(le == hi && hi < len(s)) && le-ls <= maxTableLine
	return ls, le, ok
}

// tableLine fills the cache for the line holding s[pos].
func (sc *scanner) tableLine(pos int) {
	s, tc := sc.s, &sc.table
	ls, le, ok := lineAt(s, pos)
	tc.ls, tc.le, tc.table = ls, max(le, pos+1), false
	tc.pos, tc.col, tc.inq = ls, 0, false
	if !ok || ls == 0 {
		return // a line too long, or the first line
	}
	// The line above must be a row of the same table: the separator is
	// the first of tab, '|' and ',' that both lines hold as often.
	as, ae, ok := lineAt(s, ls-1)
	if !ok {
		return
	}
	line, above := s[ls:le], s[as:ae]
	tc.sep, tc.seps = 0, 0
	for _, c := range []byte{'\t', '|', ','} {
		if n, _ := countSeps(line, c, false); n > 0 && n < maxTableCols {
			if m, _ := countSeps(above, c, false); m == n {
				tc.sep, tc.seps = c, n
				break
			}
		}
	}
	if tc.sep == 0 {
		return
	}
	// Walk back over the lines with as many separators, to the block's
	// first line or to a line already known to be in the block.
	header := -1
	end := ls - 1 // the '\n' ending the line above
	k := 0
	for ; k < maxTableLines && end > 0; k++ {
		if tc.hsep == tc.sep && tc.hseps == tc.seps && tc.header < ls && end <= tc.through {
			header = tc.header
			break
		}
		start, _, ok := lineAt(s, end)
		if n, _ := countSeps(s[start:end], tc.sep, false); !ok || n != tc.seps {
			break // a line too long, or one that is no row of the block
		}
		header = start
		end = start - 1
	}
	if header < 0 || k == maxTableLines && end > 0 && header != tc.header {
		return // no block, or its first line is too far up to tell
	}
	if header != tc.header || tc.hsep != tc.sep || tc.hseps != tc.seps {
		if !sc.headerCells(header) {
			return
		}
		tc.header, tc.hsep, tc.hseps = header, tc.sep, tc.seps
	}
	tc.table, tc.through = true, le
}

// headerCells splits the header line at s[start] into tc.cells, false
// (tc.cells left as they were) when a cell is prose (more than three
// words, or a ':'): a line of a text with commas in it, not a header.
func (sc *scanner) headerCells(start int) bool {
	tc := &sc.table
	h := sc.s[start:]
	if i := strings.IndexByte(h, '\n'); i >= 0 {
		h = h[:i]
	}
	cells := tc.spare[:0]
	inq := false
	for {
		i := 0
		for ; i < len(h) && (h[i] != tc.sep || inq); i++ {
			if h[i] == '"' && tc.sep == ',' {
				inq = !inq
			}
		}
		c := strings.TrimSpace(h[:i])
		if words(c) > 3 || strings.IndexByte(c, ':') >= 0 {
			tc.spare = cells
			return false
		}
		cells = append(cells, strings.Trim(c, `"`))
		if i == len(h) {
			tc.spare, tc.cells = tc.cells, cells
			return true
		}
		h = h[i+1:]
	}
}

// words counts the space-separated words of s.
func words(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] != ' ' && s[i] != '\t' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t') {
			n++
		}
	}
	return n
}
