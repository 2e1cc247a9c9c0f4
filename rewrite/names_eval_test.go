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

// TestPeopleHoldout holds issue 29's goals on the holdout halves. It
// shows only aggregate figures, never a miss.
func TestPeopleHoldout(t *testing.T) {
	d := mustDetector(t, evalOptions())
	ev := EvaluateTypes(d, readSet(t, "people_holdout"), nameTypes)
	t.Logf("people_holdout:\n%s", ev.Table())
	goals := map[string][2]float64{TypeName: {0.97, 0.90}, TypeAddress: {0.95, 0.90}}
	for _, s := range ev.Types {
		if g := goals[s.Type]; s.Precision() < g[0] || s.Recall() < g[1] {
			t.Errorf("people_holdout %s: precision %.4f (goal ≥ %.2f), recall %.4f (goal ≥ %.2f)", s.Type, s.Precision(), g[0], s.Recall(), g[1])
		}
	}
	w := EvaluateWords(d, readSet(t, "presidio_names_holdout"), TypeName)
	t.Logf("presidio_names_holdout NAME words: TP %d FP %d FN %d precision %.4f recall %.4f", w.TP, w.FP, w.FN, w.Precision(), w.Recall())
	// Reached: precision 0.9619, recall 0.7249. What is left: people
	// named by a surname alone ("Unlike the Jensen novel"), in lower case,
	// or in object position ("Why is Ivan so impulsive?").
	if w.Precision() < 0.93 || w.Recall() < 0.60 {
		t.Errorf("presidio_names_holdout NAME words: precision %.4f (goal ≥ 0.93), recall %.4f (goal ≥ 0.60)", w.Precision(), w.Recall())
	}
}
