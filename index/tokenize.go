package index

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// words splits text into lowercase words: runs of letters and digits, with
// camelCase, snake_case, kebab-case and dotted paths split apart
// ("getFileInfo" → get file info, "HTMLParser" → html parser, "v2Api" → v2 api).
// A plural acronym stays whole ("URLs" → urls). Runs of CJK ideographs and
// kana become overlapping bigrams, the usual way to index text without spaces.
func words(text string) []string { return appendWords(nil, text, false) }

// appendWords appends the words of text to out. With compounds, a run
// split at case changes also yields the whole run ("GitHub" → git, hub,
// github), so a brand name matches however it is written.
func appendWords(out []string, text string, compounds bool) []string {
	for run := range alnumRuns(text) {
		n := len(out)
		out = appendRun(out, run)
		if compounds && len(out)-n > 1 && !isCJK([]rune(out[n])[0]) {
			out = append(out, strings.ToLower(run))
		}
	}
	return out
}

// alnumRuns yields the maximal runs of letters and digits of text.
func alnumRuns(text string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for i := 0; i < len(text); {
			r, size := rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[i:])
			}
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				i += size
				continue
			}
			start := i
			for i < len(text) {
				r, size := rune(text[i]), 1
				if r >= utf8.RuneSelf {
					r, size = utf8.DecodeRuneInString(text[i:])
				}
				if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				i += size
			}
			if !yield(text[start:i]) {
				return
			}
		}
	}
}

// appendRun appends the words of one alphanumeric run.
func appendRun(out []string, run string) []string {
	for i := 0; i < len(run); i++ {
		if run[i] >= utf8.RuneSelf {
			return appendUnicodeRun(out, run)
		}
	}
	lower := run
	for i := 0; i < len(run); i++ {
		if isUpper(run[i]) {
			lower = strings.ToLower(run)
			break
		}
	}
	from := 0
	for j := 1; j < len(run); j++ {
		if asciiBoundary(run, j) {
			out = append(out, lower[from:j])
			from = j
		}
	}
	return append(out, lower[from:])
}

// asciiBoundary is boundary for an ASCII run.
func asciiBoundary(run string, i int) bool {
	prev, cur := run[i-1], run[i]
	if !isUpper(cur) {
		return false
	}
	if isLower(prev) {
		return true // getFile
	}
	if isDigit(prev) {
		return i+1 < len(run) && isLower(run[i+1]) // v2Api, but 3G
	}
	if isUpper(prev) && i+1 < len(run) && isLower(run[i+1]) {
		return !(i+2 == len(run) && run[i+1] == 's')
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// appendUnicodeRun is appendRun for a run with non-ASCII letters.
func appendUnicodeRun(out []string, run string) []string {
	runes := []rune(run)
	from := 0
	for i := 1; i < len(runes); i++ {
		if boundary(runes, i) {
			out = appendPart(out, runes[from:i])
			from = i
		}
	}
	return appendPart(out, runes[from:])
}

// boundary reports whether a new word starts at runes[i].
func boundary(rs []rune, i int) bool {
	prev, cur := rs[i-1], rs[i]
	if isCJK(prev) != isCJK(cur) {
		return true
	}
	if !unicode.IsUpper(cur) {
		return false
	}
	if unicode.IsLower(prev) {
		return true // getFile
	}
	if unicode.IsDigit(prev) {
		return i+1 < len(rs) && unicode.IsLower(rs[i+1]) // v2Api, but 3G
	}
	// HTMLParser: an upper followed by upper+lower starts a word, except a
	// plural acronym at the end of the run (URLs).
	if unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
		return !(i+2 == len(rs) && rs[i+1] == 's')
	}
	return false
}

func appendPart(out []string, part []rune) []string {
	if len(part) == 0 {
		return out
	}
	if !isCJK(part[0]) {
		return append(out, strings.ToLower(string(part)))
	}
	if len(part) == 1 {
		return append(out, string(part))
	}
	for i := 0; i+1 < len(part); i++ {
		out = append(out, string(part[i:i+2]))
	}
	return out
}

func isCJK(r rune) bool {
	return r >= 0x2E80 && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

// stopwords are function words of queries and descriptions that carry no
// meaning for choosing a tool.
var stopwords = setOf(`a an and are as at be been being by for from in into is it its of on or
	that the this these those to with me my i you your we our us can could do does did please
	want wants need needs should would will shall how what which who whom when where why some any
	all if then than so such there their them they he she his her was were has have had just
	also very too via using use used let lets may might must here whether while each every
	other another`)

func setOf(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// terms turns text into index terms: words without stopwords, stemmed.
func terms(text string) []string {
	ws := words(text)
	out := ws[:0]
	for _, w := range ws {
		if !stopwords[w] {
			out = append(out, stem(w))
		}
	}
	return out
}

// compound is a name with its separators and case removed ("read_File" →
// "readfile"), so an identifier typed without separators still matches.
func compound(name string) string {
	var b strings.Builder
	for _, w := range words(name) {
		b.WriteString(w)
	}
	return b.String()
}

// firstSentence returns the description's first sentence and the rest.
// A sentence ends at ". ", "! ", "? ", a blank line, an ideographic full
// stop, or a line break followed by a list or heading.
func firstSentence(desc string) (first, rest string) {
	desc = strings.TrimSpace(desc)
	for i := 0; i < len(desc); {
		r, size := utf8.DecodeRuneInString(desc[i:])
		next := i + size
		switch {
		case r == '。' || r == '！' || r == '？':
			return strings.TrimSpace(desc[:next]), strings.TrimSpace(desc[next:])
		case (r == '.' || r == '!' || r == '?') && (next == len(desc) || desc[next] == ' ' || desc[next] == '\n'):
			if r == '.' && abbreviationBefore(desc[:i]) {
				break
			}
			return strings.TrimSpace(desc[:next]), strings.TrimSpace(desc[next:])
		case r == '\n' && next < len(desc) && (desc[next] == '\n' || desc[next] == '-' || desc[next] == '#' || desc[next] == '*'):
			return strings.TrimSpace(desc[:i]), strings.TrimSpace(desc[next:])
		}
		i = next
	}
	return desc, ""
}

// abbreviationBefore reports whether the text ends in an abbreviation whose
// period does not end a sentence ("e.g.", "i.e.", "etc.", "vs.").
func abbreviationBefore(s string) bool {
	j := strings.LastIndexAny(s, " (\n")
	w := strings.ToLower(s[j+1:])
	switch w {
	case "e.g", "i.e", "etc", "vs", "eg", "ie", "approx", "incl":
		return true
	}
	return false
}
