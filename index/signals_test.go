package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// signalSettings are the settings of issue 14's general signals, so that
// TestSignals and the benchmarks can compare them on and off in one run.
type signalSettings struct {
	intentPenalty, intentUnknown float64
	intentUnasked                float64
	acronymWeight                float64
	stepCommas                   bool
	noSchema                     bool // tools indexed without their input schemas (an ablation)
}

func currentSignals() signalSettings {
	return signalSettings{intentPenalty, intentUnknown, intentUnasked, acronymWeight, stepCommas, false}
}

func (s signalSettings) apply() (restore func()) {
	old := currentSignals()
	s.set()
	return old.set
}

func (s signalSettings) set() {
	intentPenalty, intentUnknown, acronymWeight = s.intentPenalty, s.intentUnknown, s.acronymWeight
	intentUnasked = s.intentUnasked
	stepCommas = s.stepCommas
}

var (
	// signalsOn are the signals as shipped.
	signalsOn = currentSignals()
	// signalsOff is the ranking before issue 14's second round of signals.
	signalsOff = signalSettings{}
)

type signalVariant struct {
	name string
	s    signalSettings
}

// signalVariants are each signal added alone to signalsOff, then all the
// shipped ones together.
func signalVariants() []signalVariant {
	with := func(f func(*signalSettings)) signalSettings {
		s := signalsOff
		f(&s)
		return s
	}
	return []signalVariant{
		{"before (none of these)", signalsOff},
		{"schema text left out (ablation)", with(func(s *signalSettings) { s.noSchema = true })},
		{"action kinds: conflicting kind ×0.5", with(func(s *signalSettings) { s.intentPenalty = signalsOn.intentPenalty })},
		{"action kinds: and no kind ×0.8", with(func(s *signalSettings) {
			s.intentPenalty, s.intentUnknown = signalsOn.intentPenalty, signalsOn.intentUnknown
		})},
		{"action kinds: and deleters unasked ×0.9", with(func(s *signalSettings) {
			s.intentPenalty, s.intentUnknown, s.intentUnasked = signalsOn.intentPenalty, signalsOn.intentUnknown, 0.1
		})},
		{"action kinds: and deleters unasked ×0.8", with(func(s *signalSettings) {
			s.intentPenalty, s.intentUnknown, s.intentUnasked = signalsOn.intentPenalty, signalsOn.intentUnknown, 0.2
		})},
		{"abbreviations from the catalog, 0.6", with(func(s *signalSettings) { s.acronymWeight = 0.6 })},
		{"steps also split at a comma before a verb", with(func(s *signalSettings) { s.stepCommas = true })},
		{"shipped", signalsOn},
	}
}

// TestSignals is a development aid: SIGNALS=1 prints, for each general
// signal added alone to the ranking without them, R@1 / R@5 / hard R@5 of
// every query set (the held-out halves are read by these aggregates only).
func TestSignals(t *testing.T) {
	if os.Getenv("SIGNALS") == "" {
		t.Skip("set SIGNALS=1 to measure each signal")
	}
	tools, servers, err := LoadCorpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	sets := []string{"develop", "holdout", "livemcpbench-develop", "livemcpbench-holdout"}
	queries := make(map[string][]Query)
	for _, s := range sets {
		qs, err := LoadQueries(filepath.Join(corpusDir, "queries-"+s+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		queries[s] = qs
	}
	fmt.Printf("| signal | %s |\n|---|%s\n", strings.Join(sets, " | "), strings.Repeat("---|", len(sets)))
	for _, v := range signalVariants() {
		restore := v.s.apply()
		ts := tools
		if v.s.noSchema {
			ts = slices.Clone(tools)
			for i := range ts {
				ts[i].InputSchema = nil
			}
		}
		ix := New(ts, servers)
		row := "| " + v.name + " |"
		for _, s := range sets {
			ev := Evaluate(ix, queries[s])
			a, _ := ev.Subset("all")
			hard := "-"
			if h, ok := ev.Subset("tag:hard"); ok {
				hard = fmt.Sprintf("%.1f", h.R5)
			}
			row += fmt.Sprintf(" %.1f / %.1f / %s |", a.R1, a.R5, hard)
		}
		fmt.Println(row)
		restore()
	}
}
