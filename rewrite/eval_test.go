package rewrite

import (
	"os"
	"testing"
)

// evalOptions is the configuration the presidio set is scored with: the
// defaults plus the US national phone format (the set's sentences are
// mostly American; other locales' national numbers are found by context).
func evalOptions() Options {
	o := Defaults()
	o.PhoneRegions = []string{"US"}
	return o
}

func readSet(t *testing.T, name string) []Case {
	t.Helper()
	f, err := os.Open("testdata/" + name + ".cases.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases, err := ReadCases(f)
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestPresidioSynth scores the detectors on the development part of
// Presidio's synthetic set (testdata/SOURCES.md) and holds the goal of
// issue 5.
func TestPresidioSynth(t *testing.T) {
	d, err := NewDetector(evalOptions())
	if err != nil {
		t.Fatal(err)
	}
	ev := Evaluate(d, readSet(t, "presidio_develop"))
	t.Logf("\n%s", ev.Table())
	for _, m := range ev.Misses {
		kind := "missed"
		if m.FalsePositive {
			kind = "false positive"
		}
		t.Logf("%s %s %s %q", m.ID, kind, m.Type, m.Value)
	}
	if p, f2 := ev.Overall.Precision(), ev.Overall.F2(); p < 0.99 || f2 < 0.97 {
		t.Errorf("overall precision %.4f (goal ≥ 0.99), F2 %.4f (goal ≥ 0.97)", p, f2)
	}
}
