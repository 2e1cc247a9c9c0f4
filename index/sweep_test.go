package index

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestSweep is a development aid: SWEEP="stepWeight=0,0.5,1" prints each
// set's figures (SWEEP_SETS, default develop) for each value.
func TestSweep(t *testing.T) {
	spec := os.Getenv("SWEEP")
	if spec == "" {
		t.Skip("set SWEEP=name=v1,v2 to compare settings")
	}
	sets := strings.Fields(os.Getenv("SWEEP_SETS"))
	if len(sets) == 0 {
		sets = []string{"develop"}
	}
	tools, servers, _ := LoadCorpus(corpusDir)
	name, vals, _ := strings.Cut(spec, "=")
	vars := map[string]*float64{"rrfK": &rrfK, "stepWeight": &stepWeight}
	for _, v := range strings.Split(vals, "|") {
		x, _ := strconv.ParseFloat(v, 64)
		if name == "noAnd" && x != 0 {
			stepBreaks = slices.DeleteFunc(slices.Clone(stepBreaks), func(b string) bool { return b == "and" || b == "and also" || b == "as well as" })
		}
		if name == "stepGuarantee" {
			stepGuarantee = x != 0
		}
		if p := vars[name]; p != nil {
			*p = x
		}
		ix := New(tools, servers)
		for _, set := range sets {
			qs, err := LoadQueries(filepath.Join(corpusDir, "queries-"+set+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			ev := Evaluate(ix, qs)
			a, _ := ev.Subset("all")
			m, _ := ev.Subset("tag:multi")
			h, _ := ev.Subset("tag:hard")
			fmt.Printf("%-22s %s=%-5s R@1 %5.1f R@5 %5.1f R@10 %5.1f MRR %5.1f | multi R@5 %5.1f (%d) hard R@5 %5.1f\n",
				set, name, v, a.R1, a.R5, a.R10, a.MRR, m.R5, m.N, h.R5)
		}
	}
}
