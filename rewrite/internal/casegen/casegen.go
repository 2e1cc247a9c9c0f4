// Package casegen is what the generators of rewrite/testdata's PII
// evaluation sets (gencases, genexamples) share: the case format of
// *.cases.jsonl, a set being built from templates with a seeded random
// source, the develop/holdout split and the writer. Everything random
// comes from the caller's seeded source, so a rerun writes the same bytes.
package casegen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
)

// Span is one value a case's text holds, with its type.
type Span struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

// Case is one line of a *.cases.jsonl file. Tags[0] is its group; a
// positive case is tagged "positive", a case with no spans
// "hard-negative".
type Case struct {
	ID    string   `json:"id"`
	Text  string   `json:"text"`
	Spans []Span   `json:"spans"`
	Tags  []string `json:"tags"`
}

// Set builds cases from templates, drawing from R.
type Set struct {
	R     *rand.Rand
	Cases []Case

	prefix string
	n      int
}

// New is a set whose cases are numbered prefix-0001, prefix-0002, ...
func New(r *rand.Rand, prefix string) *Set {
	return &Set{R: r, prefix: prefix}
}

// Add records a case of group: the first "%s" of tmpl becomes value, of
// type typ; typ "" makes it a hard negative.
func (s *Set) Add(group, typ, value, tmpl string) {
	s.n++
	c := Case{ID: fmt.Sprintf("%s-%04d", s.prefix, s.n), Text: strings.Replace(tmpl, "%s", value, 1), Tags: []string{group}}
	if typ != "" {
		c.Spans = []Span{{Type: typ, Value: value}}
		c.Tags = append(c.Tags, "positive")
	} else {
		c.Tags = append(c.Tags, "hard-negative")
	}
	s.Cases = append(s.Cases, c)
}

// Pick is one of xs, at random.
func (s *Set) Pick(xs []string) string { return xs[s.R.IntN(len(xs))] }

// Digits is n random decimal digits.
func (s *Set) Digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + s.R.IntN(10))
	}
	return string(b)
}

// Split shuffles each group (Tags[0]) with r and cuts it in half, so that
// both halves hold every group; the groups follow in name order.
func Split(cases []Case, r *rand.Rand) (dev, hold []Case) {
	groups := map[string][]Case{}
	var keys []string
	for _, c := range cases {
		k := c.Tags[0]
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		r.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		h := len(g) / 2
		dev = append(dev, g[:h]...)
		hold = append(hold, g[h:]...)
	}
	return dev, hold
}

// SortByID orders cases by ID.
func SortByID(cases []Case) {
	sort.Slice(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
}

// Read reads a *.cases.jsonl file.
func Read(path string) ([]Case, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cases []Case
	for i, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var c Case
		if err := json.Unmarshal([]byte(l), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// Write writes cases to path, one JSON line each (a case without spans
// with "spans": []), and says on stderr how many.
func Write(path string, cases []Case) error {
	var b strings.Builder
	for _, c := range cases {
		if c.Spans == nil {
			c.Spans = []Span{}
		}
		j, err := json.Marshal(c)
		if err != nil {
			return err
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "%s: %d cases\n", path, len(cases))
	return nil
}
