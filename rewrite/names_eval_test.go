package rewrite

import "testing"

// nameTypes are the types the people sets are scored on.
var nameTypes = []string{TypeName, TypeAddress}

// TestPeopleDevelop shows NAME and ADDRESS on the develop halves, with
// every miss: the sets to tune on.
func TestPeopleDevelop(t *testing.T) {
	d := mustDetector(t, evalOptions())
	ev := EvaluateTypes(d, readSet(t, "people_develop"), nameTypes)
	t.Logf("people_develop:\n%s", ev.Table())
	for _, m := range ev.Misses {
		kind := "missed"
		if m.FalsePositive {
			kind = "false positive"
		}
		t.Logf("%s %s %s %q", m.ID, kind, m.Type, m.Value)
	}
	cases := readSet(t, "presidio_names_develop")
	w := EvaluateWords(d, cases, TypeName)
	t.Logf("presidio_names_develop NAME words: TP %d FP %d FN %d precision %.4f recall %.4f", w.TP, w.FP, w.FN, w.Precision(), w.Recall())
	if testing.Verbose() {
		var spans []Span
		for _, c := range cases {
			spans = d.Find(c.Text, spans[:0])
			var got []string
			for _, sp := range spans {
				if sp.Type == TypeName {
					got = append(got, c.Text[sp.Start:sp.End])
				}
			}
			var want []string
			for _, sp := range c.Spans {
				if sp.Type == TypeName {
					want = append(want, sp.Value)
				}
			}
			if len(got)+len(want) > 0 {
				t.Logf("%s want %q got %q | %.80q", c.ID, want, got, c.Text)
			}
		}
	}
}
