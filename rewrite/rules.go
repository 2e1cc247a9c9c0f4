package rewrite

import (
	_ "embed"
	"encoding/json"
	"math"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Secrets of the providers gitleaks knows (secretrules/gitleaks.json, from
// gitleaks' default rule set, MIT License; secretrules/convert.py makes it)
// are found by keyword, then confirmed by the rule's regular expression
// run on a window around the keyword, its entropy floor and allowlists,
// as gitleaks does. The rules are embedded: nothing is fetched at run time.
// The hand-written detectors of secrets.go stay in front as a fast path
// (AWS, GitHub, Slack, Stripe, JWT, PEM, …).

//go:embed secretrules/gitleaks.json
var gitleaksJSON []byte

type ruleFile struct {
	Allowlist allowSpec  `json:"allowlist"`
	Rules     []ruleSpec `json:"rules"`
}

type ruleSpec struct {
	ID          string      `json:"id"`
	Regex       string      `json:"regex"`
	SecretGroup int         `json:"secretGroup"`
	Entropy     float64     `json:"entropy"`
	Keywords    []string    `json:"keywords"`
	Allowlists  []allowSpec `json:"allowlists"`
}

type allowSpec struct {
	RegexTarget string   `json:"regexTarget"`
	Regexes     []string `json:"regexes"`
	Stopwords   []string `json:"stopwords"`
}

type allow struct {
	target    string // "", "secret", "match" or "line"
	res       []*regexp.Regexp
	stopwords []string // lower-case
}

type secretRule struct {
	id      string
	re      *regexp.Regexp
	group   int
	entropy float64
	assign  bool // "keyword … = value": the keyword is not part of the value
	allows  []allow
}

type keywordRule struct {
	kw     string // lower-case
	p4, m4 uint32 // its first (up to) four bytes, and their mask
	rule   *secretRule
}

// lower4 packs the lower-cased first (up to) four bytes of s.
func lower4(s string) (x, m uint32) {
	for k := 0; k < 4 && k < len(s); k++ {
		x |= uint32(lower(s[k])) << (8 * k)
		m |= 0xff << (8 * k)
	}
	return x, m
}

// ruleSet is the compiled rule file.
type ruleSet struct {
	global allow
	// pair maps the lower-cased first two bytes of keywords to 1 + their
	// index in lists, which holds the keywords (and rules) starting so.
	pair  [1 << 12]uint16
	lists [][]keywordRule
	// tri has a bit per hash of a keyword's first three bytes; short
	// marks pairs that start a keyword of two bytes, which tri cannot.
	// All three tables fit in a core's first-level cache.
	tri   [1 << 10]uint64
	short [1 << 12]bool
}

// code folds a byte to six bits: letters (either case) and digits apart,
// the rest in a few shared slots; a hit is confirmed by comparing.
var code [256]uint8

func init() {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z':
			code[c] = uint8(c-'a') + 1
		case c >= 'A' && c <= 'Z':
			code[c] = uint8(c-'A') + 1
		case c >= '0' && c <= '9':
			code[c] = uint8(c-'0') + 27
		default:
			code[c] = 37 + uint8(c%27)
		}
	}
}

func pairOf(a, b byte) uint16 { return uint16(code[a])<<6 | uint16(code[b]) }

func triHash(a, b, c byte) uint32 {
	return (uint32(code[a])<<12 | uint32(code[b])<<6 | uint32(code[c])) * 2654435761 >> 16
}

var (
	rulesOnce sync.Once
	rules     *ruleSet
)

// secretRules compiles the embedded rules on first use. A rule that does
// not compile is left out (all of them compile; a test says so).
func secretRules() *ruleSet {
	rulesOnce.Do(func() { rules, _ = compileRules(gitleaksJSON) })
	return rules
}

// compileRules builds a rule set; it returns the ids of rules left out.
func compileRules(data []byte) (*ruleSet, []string) {
	var f ruleFile
	if err := json.Unmarshal(data, &f); err != nil {
		return &ruleSet{}, []string{"(file): " + err.Error()}
	}
	rs := &ruleSet{}
	var bad []string
	rs.global, _ = compileAllow(f.Allowlist)
	for _, spec := range f.Rules {
		re, err := regexp.Compile(spec.Regex)
		if err != nil {
			bad = append(bad, spec.ID)
			continue
		}
		r := &secretRule{id: spec.ID, re: re, group: spec.SecretGroup, entropy: spec.Entropy,
			assign: strings.Contains(spec.Regex, "(?:=|>|:{1,3}=")}
		ok := true
		for _, a := range spec.Allowlists {
			al, err := compileAllow(a)
			if err != nil {
				ok = false
				break
			}
			r.allows = append(r.allows, al)
		}
		if !ok {
			bad = append(bad, spec.ID)
			continue
		}
		for _, kw := range spec.Keywords {
			kw = strings.ToLower(kw)
			if len(kw) < 2 {
				continue
			}
			p := pairOf(kw[0], kw[1])
			if rs.pair[p] == 0 {
				rs.lists = append(rs.lists, nil)
				rs.pair[p] = uint16(len(rs.lists))
			}
			p4, m4 := lower4(kw)
			rs.lists[rs.pair[p]-1] = append(rs.lists[rs.pair[p]-1], keywordRule{kw: kw, p4: p4, m4: m4, rule: r})
			if len(kw) == 2 {
				rs.short[p] = true
			} else {
				h := triHash(kw[0], kw[1], kw[2])
				rs.tri[h>>6] |= 1 << (h & 63)
			}
		}
	}
	return rs, bad
}

func compileAllow(a allowSpec) (allow, error) {
	al := allow{target: a.RegexTarget}
	for _, x := range a.Regexes {
		re, err := regexp.Compile(x)
		if err != nil {
			return al, err
		}
		al.res = append(al.res, re)
	}
	for _, w := range a.Stopwords {
		al.stopwords = append(al.stopwords, strings.ToLower(w))
	}
	return al, nil
}

// allowed reports whether the allowlist lets a finding pass as harmless.
func (a *allow) allowed(secret, match, line string) bool {
	target := secret
	switch a.target {
	case "match":
		target = match
	case "line":
		target = line
	}
	for _, re := range a.res {
		if re.MatchString(target) {
			return true
		}
	}
	if len(a.stopwords) > 0 {
		ls := strings.ToLower(secret)
		for _, w := range a.stopwords {
			if strings.Contains(ls, w) {
				return true
			}
		}
	}
	return false
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var n [256]int
	for i := 0; i < len(s); i++ {
		n[s[i]]++
	}
	h := 0.0
	for _, c := range n {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

const ruleWindow = 512 // bytes after a keyword a value may end within

// ruleScan is the state of the rules in one scan: the scanner calls at
// for each word start and each start of a part of a word after '_'.
type ruleScan struct {
	rs   *ruleSet
	done map[*secretRule]int // rule → end of the window it last ran on
	out  []Span              // unsorted, possibly overlapping; merged later
}

// at runs the rules with a keyword at s[i].
func (rc *ruleScan) at(s string, i int) {
	if i+1 >= len(s) {
		return
	}
	p := pairOf(s[i], s[i+1])
	k := rc.rs.pair[p]
	if k == 0 {
		return
	}
	if !rc.rs.short[p] {
		if i+2 >= len(s) {
			return
		}
		if h := triHash(s[i], s[i+1], s[i+2]); rc.rs.tri[h>>6]&(1<<(h&63)) == 0 {
			return
		}
	}
	x, _ := lower4(s[i:min(len(s), i+4)])
	for _, kr := range rc.rs.lists[k-1] {
		if x&kr.m4 != kr.p4 || len(s)-i < len(kr.kw) || len(kr.kw) > 4 && !strings.EqualFold(s[i+4:i+len(kr.kw)], kr.kw[4:]) {
			continue
		}
		if rc.done[kr.rule] > i {
			continue
		}
		if kr.rule.assign && !assignAhead(s, i+len(kr.kw)) {
			continue
		}
		if rc.done == nil {
			rc.done = map[*secretRule]int{}
		}
		var end int
		rc.out, end = kr.rule.run(s, i, rc.out, &rc.rs.global)
		rc.done[kr.rule] = end
	}
}

// assignAhead: after the keyword, within a few name characters and
// quotes, comes an assignment ("=", ":", "=>", ",", "|") as the
// keyword-and-value rules require.
func assignAhead(s string, j int) bool {
	for k := 0; j < len(s) && k < 72; j, k = j+1, k+1 {
		switch c := s[j]; {
		case isWord(c) || c == '.' || c == '-' || c == ' ' || c == '\t' || c == '\'' || c == '"' || c == '\n' || c == '\r':
			continue
		case c == '=' || c == ':' || c == '>' || c == ',' || c == '|' || c == '?':
			return true
		default:
			return false
		}
	}
	return false
}

// run applies the rule to a window around s[i] and appends its findings;
// it returns the end of the window searched.
func (r *secretRule) run(s string, i int, dst []Span, global *allow) ([]Span, int) {
	lo := i - 1
	if r.assign {
		lo = i - 50
	}
	lo = max(lo, 0)
	for lo > 0 && lo < len(s) && s[lo]&0xC0 == 0x80 { // not inside a rune
		lo--
	}
	hi := min(len(s), i+ruleWindow)
	w := s[lo:hi]
	for _, m := range r.re.FindAllStringSubmatchIndex(w, -1) {
		if m[1] <= i-lo {
			continue // ends before the keyword: another occurrence
		}
		if hi < len(s) && m[1] == len(w) {
			continue // cut by the window, not by the value
		}
		gs, ge := m[0], m[1]
		if r.group > 0 && 2*r.group+1 < len(m) {
			gs, ge = m[2*r.group], m[2*r.group+1]
		} else if len(m) > 2 {
			for g := 1; 2*g+1 < len(m); g++ {
				if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
					gs, ge = m[2*g], m[2*g+1]
					break
				}
			}
		}
		if gs < 0 || ge <= gs {
			continue
		}
		secret, match := w[gs:ge], w[m[0]:m[1]]
		if r.entropy > 0 && entropy(secret) < r.entropy {
			continue
		}
		line := lineAround(s, lo+m[0], lo+m[1])
		if global.allowed(secret, match, line) {
			continue
		}
		ok := true
		for k := range r.allows {
			if r.allows[k].allowed(secret, match, line) {
				ok = false
				break
			}
		}
		if ok {
			start := lo + gs
			// A secret URL ("https://hooks.slack.com/services/…")
			// keeps its scheme.
			for _, scheme := range []string{"https://", "http://"} {
				if strings.HasSuffix(s[:start], scheme) {
					start -= len(scheme)
					break
				}
			}
			dst = append(dst, Span{Start: start, End: lo + ge, Type: TypeSecret})
		}
	}
	return dst, hi
}

func lineAround(s string, a, b int) string {
	if k := strings.LastIndexByte(s[:a], '\n'); k >= 0 {
		a = k + 1
	} else {
		a = 0
	}
	if k := strings.IndexByte(s[b:], '\n'); k >= 0 {
		b += k
	} else {
		b = len(s)
	}
	return s[a:b]
}

// mergeSpans adds cand to the sorted spans dst[base:], keeping those
// already there and, among candidates, the earliest then the longest;
// a candidate that overlaps a kept span is dropped.
func mergeSpans(dst []Span, base int, cand []Span) []Span {
	if len(cand) == 0 {
		return dst
	}
	sort.Slice(cand, func(i, j int) bool {
		if cand[i].Start != cand[j].Start {
			return cand[i].Start < cand[j].Start
		}
		return cand[i].End > cand[j].End
	})
	built := append([]Span(nil), dst[base:]...)
	merged := make([]Span, 0, len(built)+len(cand))
	end, k := 0, 0
	for _, c := range cand {
		for k < len(built) && built[k].Start < c.End {
			merged = append(merged, built[k])
			end = max(end, built[k].End)
			k++
		}
		if c.Start >= end && (k == len(built) || c.End <= built[k].Start) {
			merged = append(merged, c)
			end = c.End
		}
	}
	merged = append(merged, built[k:]...)
	return append(dst[:base], merged...)
}
