package rewrite

import "strings"

// Tables: a value in a column whose header names it ("Phone", "Mobile",
// "SSN") has that word as context, as a value under a JSON key does. A
// table here is a block of consecutive lines with the same number of one
// separator: tab, '|' (Markdown) or ',' (CSV); its header is the block's
// first line. Quoted separators are not parsed: a row that counts
// differently ends the block, and its values lose the header's context.

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
	seps   int      // separators per line
	cells  []string // the header's cells
	pos    int      // the position last asked about on the line
	col    int      // its column
	// The block: its header line's start, and the end of its last line
	// known to belong to it, so the next row need not walk back.
	header, through int
}

// columnHeader returns the header cell of the column s[pos] lies in, or ""
// when s[pos] is in no table, or in its header.
func (sc *scanner) columnHeader(pos int) string {
	tc := &sc.table
	if tc.le == 0 || pos < tc.ls || pos >= tc.le {
		sc.tableLine(pos)
		tc.pos, tc.col = tc.ls, 0
	}
	if !tc.table {
		return ""
	}
	if pos < tc.pos {
		tc.pos, tc.col = tc.ls, 0
	}
	tc.col += strings.Count(sc.s[tc.pos:pos], string(tc.sep))
	tc.pos = pos
	if tc.col >= len(tc.cells) {
		return ""
	}
	return tc.cells[tc.col]
}

// tableLine fills the cache for the line holding s[pos].
func (sc *scanner) tableLine(pos int) {
	s, tc := sc.s, &sc.table
	lo := max(0, pos-maxTableLine)
	ls := strings.LastIndexByte(s[lo:pos], '\n') + 1 + lo
	hi := min(len(s), pos+maxTableLine)
	le := strings.IndexByte(s[pos:hi], '\n')
	if le < 0 {
		le = hi
	} else {
		le += pos
	}
	prevHeader, prevThrough, prevSep, prevSeps := tc.header, tc.through, tc.sep, tc.seps
	*tc = tableCache{ls: ls, le: max(le, pos+1), cells: tc.cells[:0]}
	if ls == 0 || ls == lo && lo > 0 || le == hi && hi < len(s) {
		return // the first line, or a line too long
	}
	line := s[ls:le]
	for _, c := range []byte{'\t', '|', ','} {
		if strings.IndexByte(line, c) >= 0 {
			tc.sep = c
			break
		}
	}
	if tc.sep == 0 {
		return
	}
	sep := string(tc.sep)
	tc.seps = strings.Count(line, sep)
	// Walk back over the lines with as many separators, to the block's
	// first line or to a line already known to be in the block.
	known := prevSep == tc.sep && prevSeps == tc.seps
	header := -1
	end := ls - 1 // the '\n' ending the line above
	for k := 0; k < maxTableLines && end > 0; k++ {
		if known && prevHeader < ls && end <= prevThrough {
			header = prevHeader
			break
		}
		from := max(0, end-maxTableLine)
		start := strings.LastIndexByte(s[from:end], '\n') + 1 + from
		if start == from && from > 0 || strings.Count(s[start:end], sep) != tc.seps {
			break // a line too long, or one that is no row of the block
		}
		header = start
		end = start - 1
	}
	if header < 0 || tc.seps >= maxTableCols {
		return
	}
	h := s[header:]
	if i := strings.IndexByte(h, '\n'); i >= 0 {
		h = h[:i]
	}
	for _, c := range strings.Split(h, sep) {
		c = strings.TrimSpace(c)
		// A header names its column in a few words; a cell of prose
		// ("Phone: call later") names nothing.
		if len(strings.Fields(c)) > 3 || strings.IndexByte(c, ':') >= 0 {
			c = ""
		}
		tc.cells = append(tc.cells, c)
	}
	tc.table, tc.header, tc.through = true, header, le
}
