package rewrite

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Case is one labelled text of an evaluation set (JSON lines of
// {"id","text","spans":[{"type","value"}]}).
type Case struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	Spans []struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"spans"`
	// Tags mark hard negatives ("hard-negative"): texts made to look like
	// a value that are not one.
	Tags []string `json:"tags"`
}

// hardNegative reports whether c is tagged as a hard negative.
func (c Case) hardNegative() bool {
	for _, t := range c.Tags {
		if t == "hard-negative" {
			return true
		}
	}
	return false
}

// ReadCases reads JSON lines of cases; every line must parse.
func ReadCases(r io.Reader) ([]Case, error) {
	var out []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(b), &c); err != nil {
			return nil, fmt.Errorf("line %d: %v (want {\"id\",\"text\",\"spans\":[{\"type\",\"value\"}]})", line, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no cases found; want one JSON object per line")
	}
	return out, nil
}

// Score counts a detector's hits for one type.
type Score struct {
	Type       string
	TP, FP, FN int
}

// Precision is TP/(TP+FP), 1 with no predictions.
func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is TP/(TP+FN), 1 with no labels.
func (s Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

// F2 weighs recall twice as much as precision.
func (s Score) F2() float64 {
	p, r := s.Precision(), s.Recall()
	if p+r == 0 {
		return 0
	}
	return 5 * p * r / (4*p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// Miss is one disagreement, for reports.
type Miss struct {
	ID, Type, Value string
	FalsePositive   bool
}

// Evaluation is the result of Evaluate.
type Evaluation struct {
	Types   []Score // per labelled type, sorted by name
	Overall Score
	Misses  []Miss
	// Unscored counts detections of types the set does not label
	// (secrets, custom): neither credited nor penalised.
	Unscored int
	// HardNegatives counts the cases tagged "hard-negative"; Touched
	// those of them in which anything at all was detected.
	HardNegatives, Touched int
}

// Evaluate runs d over the cases. A detection counts only if its type and
// its exact text equal a label of the case (each label matches once).
// Detections of a type the set does not label and that is not one of the
// seven scored types (NAME on a set of phone numbers) are unscored, and
// touch no hard negative.
func Evaluate(d *Detector, cases []Case) Evaluation {
	return EvaluateTypes(d, cases, nil)
}

// EvaluateTypes is Evaluate scoring only the given types (all when nil):
// labels and detections of other types are ignored.
func EvaluateTypes(d *Detector, cases []Case, types []string) Evaluation {
	only := func(t string) bool {
		if types == nil {
			return true
		}
		for _, x := range types {
			if x == t {
				return true
			}
		}
		return false
	}
	byType := map[string]*Score{}
	score := func(t string) *Score {
		if byType[t] == nil {
			byType[t] = &Score{Type: t}
		}
		return byType[t]
	}
	var ev Evaluation
	var spans []Span
	for _, c := range cases {
		for _, sp := range c.Spans {
			if only(sp.Type) {
				score(sp.Type)
			}
		}
	}
	scored := func(t string) bool {
		_, labelled := byType[t]
		return only(t) && (labelled || types == nil && scoredType(t))
	}
	for _, c := range cases {
		gold := map[[2]string]int{}
		for _, sp := range c.Spans {
			if only(sp.Type) {
				gold[[2]string{sp.Type, sp.Value}]++
			}
		}
		var found []detected
		found, spans = detections(d, c.Text, spans[:0])
		if c.hardNegative() {
			ev.HardNegatives++
			for _, sp := range found {
				if scored(sp.Type) {
					ev.Touched++
					break
				}
			}
		}
		for _, sp := range found {
			k := [2]string{sp.Type, sp.Value}
			if !only(sp.Type) {
				continue
			}
			if !scored(sp.Type) {
				ev.Unscored++
				continue
			}
			if gold[k] > 0 {
				gold[k]--
				score(sp.Type).TP++
				continue
			}
			score(sp.Type).FP++
			ev.Misses = append(ev.Misses, Miss{ID: c.ID, Type: k[0], Value: k[1], FalsePositive: true})
		}
		for k, n := range gold {
			for ; n > 0; n-- {
				score(k[0]).FN++
				ev.Misses = append(ev.Misses, Miss{ID: c.ID, Type: k[0], Value: k[1]})
			}
		}
	}
	ev.Overall.Type = "overall"
	for _, s := range byType {
		ev.Types = append(ev.Types, *s)
		ev.Overall.TP += s.TP
		ev.Overall.FP += s.FP
		ev.Overall.FN += s.FN
	}
	sort.Slice(ev.Types, func(i, j int) bool { return ev.Types[i].Type < ev.Types[j].Type })
	sort.Slice(ev.Misses, func(i, j int) bool { return ev.Misses[i].ID < ev.Misses[j].ID })
	return ev
}

// scoredType: the built-in types an evaluation set may label.
func scoredType(t string) bool {
	switch t {
	case TypeEmail, TypePhone, TypeCreditCard, TypeIBAN, TypeUSSSN, TypeIPAddress:
		return true
	}
	return false
}

// Table renders an evaluation as a fixed-width table.
func (ev Evaluation) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-12s %5s %4s %4s %9s %7s %6s\n", "type", "TP", "FP", "FN", "precision", "recall", "F2")
	for _, s := range append(ev.Types, ev.Overall) {
		fmt.Fprintf(&b, "%-12s %5d %4d %4d %9.4f %7.4f %6.4f\n", s.Type, s.TP, s.FP, s.FN, s.Precision(), s.Recall(), s.F2())
	}
	if ev.HardNegatives > 0 {
		fmt.Fprintf(&b, "hard negatives touched: %d of %d\n", ev.Touched, ev.HardNegatives)
	}
	return b.String()
}

// EvaluateWords scores type typ word by word: a word (a run of non-space
// characters) of a labelled value is a positive, and counts as found when
// a detection of typ overlaps it. Presidio's PERSON labels are scored so,
// where "Dr. Jane Doe" and "Jane Doe" should not count as a miss and a
// false positive.
func EvaluateWords(d *Detector, cases []Case, typ string) Score {
	sc := Score{Type: typ}
	var spans []Span
	for _, c := range cases {
		gold := make([]bool, len(c.Text))
		for _, sp := range c.Spans {
			if sp.Type != typ {
				continue
			}
			for from := 0; ; {
				k := strings.Index(c.Text[from:], sp.Value)
				if k < 0 || sp.Value == "" {
					break
				}
				for j := from + k; j < from+k+len(sp.Value); j++ {
					gold[j] = true
				}
				from += k + len(sp.Value)
			}
		}
		found := make([]bool, len(c.Text))
		spans = d.Find(c.Text, spans[:0])
		for _, sp := range spans {
			if sp.Type == typ {
				for j := sp.Start; j < sp.End; j++ {
					found[j] = true
				}
			}
		}
		for i := 0; i < len(c.Text); {
			if c.Text[i] == ' ' || c.Text[i] == '\n' || c.Text[i] == '\t' {
				i++
				continue
			}
			j := i
			g, f := false, false
			for ; j < len(c.Text) && c.Text[j] != ' ' && c.Text[j] != '\n' && c.Text[j] != '\t'; j++ {
				g = g || gold[j]
				f = f || found[j]
			}
			switch {
			case g && f:
				sc.TP++
			case g:
				sc.FN++
			case f:
				sc.FP++
			}
			i = j
		}
	}
	return sc
}

// detected is one detection: its type and text.
type detected struct{ Type, Value string }

// detections runs d over a case's text as toolfold would: a JSON text
// string by string, each with the key it sits under (TokenizeJSON's
// walk), any other text whole.
func detections(d *Detector, text string, spans []Span) ([]detected, []Span) {
	var out []detected
	t := strings.TrimSpace(text)
	if len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
		collect := func(s, hint string) {
			spans = d.find(s, hint, spans[:0], false)
			for _, sp := range spans {
				out = append(out, detected{sp.Type, s[sp.Start:sp.End]})
			}
		}
		_, err := walkJSON([]byte(t), func(_ *bytes.Buffer, lit string, escaped bool, hint string) error {
			s := lit[1 : len(lit)-1]
			if escaped {
				u, err := unquote(lit)
				if err != nil {
					return err
				}
				s = u
			}
			collect(s, hint)
			return nil
		}, func(_ *bytes.Buffer, num string, hint string) { collect(num, hint) })
		if err == nil {
			return out, spans
		}
		out = out[:0]
	}
	spans = d.Find(text, spans[:0])
	for _, sp := range spans {
		out = append(out, detected{sp.Type, text[sp.Start:sp.End]})
	}
	return out, spans
}
