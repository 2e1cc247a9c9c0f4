package rewrite

import (
	"math/rand"
	"strings"
	"testing"
)

// bruteHeader is columnHeader written plainly, with no cache and no
// bounds but the look-back's: split into lines, choose the separator, walk
// up, split the header.
func bruteHeader(s string, pos int) string {
	lines := strings.SplitAfter(s, "\n")
	off, li := 0, 0
	for li = range lines {
		if pos < off+len(lines[li]) || li == len(lines)-1 {
			break
		}
		off += len(lines[li])
	}
	trim := func(l string) string { return strings.TrimSuffix(l, "\n") }
	if li == 0 {
		return ""
	}
	line, above := trim(lines[li]), trim(lines[li-1])
	var sep byte
	n := 0
	for _, c := range []byte{'\t', '|', ','} {
		if a, _ := countSeps(line, c, false); a > 0 && a < maxTableCols {
			if b, _ := countSeps(above, c, false); a == b {
				sep, n = c, a
				break
			}
		}
	}
	if sep == 0 {
		return ""
	}
	h := li - 1
	for h-1 >= 0 {
		if c, _ := countSeps(trim(lines[h-1]), sep, false); c != n {
			break
		}
		h--
	}
	hl := trim(lines[h])
	var cells []string
	inq := false
	cur := 0
	for i := 0; i <= len(hl); i++ {
		if i == len(hl) || hl[i] == sep && !inq {
			c := strings.TrimSpace(hl[cur:i])
			if words(c) > 3 || strings.IndexByte(c, ':') >= 0 {
				return ""
			}
			cells = append(cells, strings.Trim(c, `"`))
			cur = i + 1
			continue
		}
		if hl[i] == '"' && sep == ',' {
			inq = !inq
		}
	}
	col, _ := countSeps(s[off:pos], sep, false)
	if col >= len(cells) {
		return ""
	}
	return cells[col]
}

// TestColumnHeaderMatchesBruteForce asks columnHeader about random
// positions of random short texts, in any order on one scanner (so the
// cache is reused across lines and blocks), and compares with bruteHeader.
func TestColumnHeaderMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	alpha := []string{"a", "b ", ",", "|", "\t", "\n", "\r", " ", ":", "\"", "x y z w", "\n"}
	d, _ := NewDetector(Defaults())
	bad := 0
	for it := 0; it < 30000; it++ {
		var sb strings.Builder
		for k := rng.Intn(120); k >= 0; k-- {
			sb.WriteString(alpha[rng.Intn(len(alpha))])
		}
		s := sb.String()
		if s == "" {
			continue
		}
		sc := scanner{d: d, s: s}
		for q := 0; q < 12; q++ {
			pos := rng.Intn(len(s))
			if s[pos] == '\n' {
				continue
			}
			got, want := sc.columnHeader(pos), bruteHeader(s, pos)
			if got != want {
				bad++
				if bad < 5 {
					t.Errorf("%q at %d: got %q want %q", s, pos, got, want)
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d mismatches", bad)
	}
}
