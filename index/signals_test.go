package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// signalSettings are the settings of issue 14's general signals, so that
// TestSignals and the benchmarks can compare them on and off in one run.
type signalSettings struct {
	intentPenalty float64
	intentWords   int
	intentWordnet bool
	acronymWeight float64
	acronymMin    int
}

func currentSignals() signalSettings {
	return signalSettings{intentPenalty, intentWords, intentWordnet, acronymWeight, acronymMinTools}
}

func (s signalSettings) apply() (restore func()) {
	old := currentSignals()
	s.set()
	return old.set
}

func (s signalSettings) set() {
	intentPenalty, intentWords, intentWordnet = s.intentPenalty, s.intentWords, s.intentWordnet
	acronymWeight, acronymMinTools = s.acronymWeight, s.acronymMin
}

// signalsOn are the signals as shipped.
var signalsOn = currentSignals()

// TestSignals is a development aid: SIGNALS=1 prints, for each general
// signal added alone to the shipped ranking without it, the figures of
// every query set (the held-out halves by their aggregates only).
func TestSignals(t *testing.T) {
	if os.Getenv("SIGNALS") == "" {
		t.Skip("set SIGNALS=1 to measure each signal")
	}
	tools, servers, _ := LoadCorpus(corpusDir)
	sets := []string{"develop", "holdout", "livemcpbench-develop", "livemcpbench-holdout"}
	queries := make(map[string][]Query)
	for _, s := range sets {
		qs, err := LoadQueries(filepath.Join(corpusDir, "queries-"+s+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		queries[s] = qs
	}
	off := signalsOn
	off.intentPenalty = 0
	off.acronymWeight = 0
	variants := []struct {
		name string
		s    signalSettings
	}{
		{"none", off},
	}
	for _, p := range strings.Fields(os.Getenv("SIGNALS_INTENT")) { // penalty,words,wordnet
		v := off
		var wn int
		fmt.Sscanf(p, "%g,%d,%d", &v.intentPenalty, &v.intentWords, &wn)
		v.intentWordnet = wn == 1
		variants = append(variants, struct {
			name string
			s    signalSettings
		}{"intent " + p, v})
	}
	for _, p := range strings.Fields(os.Getenv("SIGNALS_ACRONYM")) { // weight,min
		v := off
		fmt.Sscanf(p, "%g,%d", &v.acronymWeight, &v.acronymMin)
		variants = append(variants, struct {
			name string
			s    signalSettings
		}{"acronym " + p, v})
	}
	fmt.Printf("| signal | %s |\n", strings.Join(sets, " | "))
	for _, v := range variants {
		restore := v.s.apply()
		ix := New(tools, servers)
		row := "| " + v.name + " |"
		for _, s := range sets {
			ev := Evaluate(ix, queries[s])
			a, _ := ev.Subset("all")
			h, ok := ev.Subset("tag:hard")
			hard := "-"
			if ok {
				hard = fmt.Sprintf("%.1f", h.R5)
			}
			row += fmt.Sprintf(" %.1f / %.1f / %s |", a.R1, a.R5, hard)
		}
		fmt.Println(row)
		restore()
	}
}
