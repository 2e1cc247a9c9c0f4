package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolfold/toolfold/internal/cliflags"
	"github.com/toolfold/toolfold/rewrite"
)

// piiSets are the labelled sets of rewrite/testdata (SOURCES.md there),
// by name. The holdout sets are split off once and never tuned on: eval-pii
// shows only their aggregate figures, never their misses.
// The NAME and ADDRESS sets are scored on those two types only (their
// texts hold unlabelled emails and phone numbers); the Presidio ones word
// by word too, as Presidio's PERSON labels are.
var piiSets = []struct {
	name, file string
	names      bool // score NAME and ADDRESS only
	words      bool // also word by word
}{
	{"presidio-develop", "presidio_develop.cases.jsonl", false, false},
	{"presidio-holdout", "presidio_holdout.cases.jsonl", false, false},
	{"generated-develop", "generated_develop.cases.jsonl", false, false},
	{"generated-holdout", "generated_holdout.cases.jsonl", false, false},
	{"examples-develop", "examples_develop.cases.jsonl", false, false},
	{"examples-holdout", "examples_holdout.cases.jsonl", false, false},
	{"faker-develop", "faker_develop.cases.jsonl", false, false},
	{"faker-holdout", "faker_holdout.cases.jsonl", false, false},
	{"faker-negatives", "faker_negatives.cases.jsonl", false, false},
	{"people-develop", "people_develop.cases.jsonl", true, false},
	{"people-holdout", "people_holdout.cases.jsonl", true, false},
	{"presidio-names-develop", "presidio_names_develop.cases.jsonl", true, true},
	{"presidio-names-holdout", "presidio_names_holdout.cases.jsonl", true, true},
}

func piiSetNames() string {
	var names []string
	for _, s := range piiSets {
		names = append(names, s.name)
	}
	return strings.Join(names, ", ")
}

// cmdEvalPII scores the PII detectors on labelled files of JSON lines
// ({"id","text","spans":[{"type","value"}]}): precision, recall and F2
// per type and overall, per set. A detection counts when its type and
// exact text match a label.
func cmdEvalPII(args []string, stdout, stderr io.Writer) int {
	fs, _ := newFlags("eval-pii", stderr, "warn")
	data := fs.String("data", "", "a labelled file of JSON lines (instead of --set)")
	sets := fs.String("set", "presidio-develop", "comma-separated named sets ("+piiSetNames()+", or all)")
	dir := fs.String("dir", "rewrite/testdata", "where the named sets are")
	regions := fs.String("phone-regions", "US", "comma-separated regions whose national phone formats count (\"\" for none)")
	misses := fs.Bool("misses", false, "also list every false positive and missed value (not for holdout sets)")
	if pos, err := cliflags.Parse(fs, args); err != nil {
		return exitUsage
	} else if len(pos) > 0 {
		fmt.Fprintf(stderr, "toolfold-lab eval-pii: unexpected argument %q; give a file with --data or a set with --set\n", pos[0])
		return exitUsage
	}
	opts := rewrite.Defaults()
	for _, r := range strings.Split(*regions, ",") {
		if r = strings.TrimSpace(r); r != "" {
			opts.PhoneRegions = append(opts.PhoneRegions, r)
		}
	}
	det, err := rewrite.NewDetector(opts)
	if err != nil {
		fmt.Fprintln(stderr, "toolfold-lab eval-pii:", err)
		return exitUsage
	}
	type target struct {
		name, path   string
		names, words bool
	}
	var targets []target
	if *data != "" {
		targets = append(targets, target{name: *data, path: *data})
	} else {
		for _, n := range strings.Split(*sets, ",") {
			n = strings.TrimSpace(n)
			found := false
			for _, s := range piiSets {
				if n == "all" || n == s.name {
					targets = append(targets, target{s.name, filepath.Join(*dir, s.file), s.names, s.words})
					found = true
				}
			}
			if !found {
				fmt.Fprintf(stderr, "toolfold-lab eval-pii: no set named %q; use one of %s, all\n", n, piiSetNames())
				return exitUsage
			}
		}
	}
	for k, t := range targets {
		if k > 0 {
			fmt.Fprintln(stdout)
		}
		sc := scoring{names: t.names, words: t.words, misses: *misses && !strings.Contains(t.name, "holdout")}
		if code := evalOne(det, opts, t.name, t.path, sc, stdout, stderr); code != exitOK {
			return code
		}
	}
	return exitOK
}

// scoring says how a set is scored.
type scoring struct {
	names, words, misses bool
}

func evalOne(det *rewrite.Detector, opts rewrite.Options, name, path string, sc scoring, stdout, stderr io.Writer) int {
	f, err := os.Open(path)
	if err != nil {
		return fail(stderr, "%v (give a labelled JSONL file with --data)", err)
	}
	defer f.Close()
	cases, err := rewrite.ReadCases(f)
	if err != nil {
		return fail(stderr, "%s: %v", path, err)
	}
	var types []string
	if sc.names {
		types = []string{rewrite.TypeName, rewrite.TypeAddress}
	}
	ev := rewrite.EvaluateTypes(det, cases, types)
	fmt.Fprintf(stdout, "%s: %d cases from %s; phone regions: %s\n\n", name, len(cases), path, orNone(opts.PhoneRegions))
	fmt.Fprint(stdout, ev.Table())
	if sc.words {
		fmt.Fprintln(stdout, "\nword by word:")
		for _, typ := range types {
			w := rewrite.EvaluateWords(det, cases, typ)
			fmt.Fprintf(stdout, "%-12s %5d %4d %4d %9.4f %7.4f %6.4f\n", typ, w.TP, w.FP, w.FN, w.Precision(), w.Recall(), w.F2())
		}
	}
	if ev.Unscored > 0 {
		fmt.Fprintf(stdout, "\n%d detections of types the file does not label (secrets, custom) were not scored\n", ev.Unscored)
	}
	if sc.misses {
		for _, m := range ev.Misses {
			kind := "missed"
			if m.FalsePositive {
				kind = "false positive"
			}
			fmt.Fprintf(stdout, "%s\t%s\t%s\t%q\n", m.ID, kind, m.Type, m.Value)
		}
	}
	return exitOK
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
