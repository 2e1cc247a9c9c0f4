package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolfold/toolfold/rewrite"
)

// piiSets are the labelled sets of rewrite/testdata (SOURCES.md there),
// by name. The holdout sets are split off once and never tuned on: eval-pii
// shows only their aggregate figures, never their misses.
var piiSets = []struct{ name, file string }{
	{"presidio-develop", "presidio_develop.cases.jsonl"},
	{"presidio-holdout", "presidio_holdout.cases.jsonl"},
	{"generated-develop", "generated_develop.cases.jsonl"},
	{"generated-holdout", "generated_holdout.cases.jsonl"},
	{"examples-develop", "examples_develop.cases.jsonl"},
	{"examples-holdout", "examples_holdout.cases.jsonl"},
	{"faker-develop", "faker_develop.cases.jsonl"},
	{"faker-holdout", "faker_holdout.cases.jsonl"},
	{"faker-negatives", "faker_negatives.cases.jsonl"},
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
	if pos, err := parse(fs, args); err != nil {
		return exitUsage
	} else if len(pos) > 0 {
		fmt.Fprintf(stderr, "toolfold eval-pii: unexpected argument %q; give a file with --data or a set with --set\n", pos[0])
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
		fmt.Fprintln(stderr, "toolfold eval-pii:", err)
		return exitUsage
	}
	type target struct{ name, path string }
	var targets []target
	if *data != "" {
		targets = append(targets, target{*data, *data})
	} else {
		for _, n := range strings.Split(*sets, ",") {
			n = strings.TrimSpace(n)
			found := false
			for _, s := range piiSets {
				if n == "all" || n == s.name {
					targets = append(targets, target{s.name, filepath.Join(*dir, s.file)})
					found = true
				}
			}
			if !found {
				fmt.Fprintf(stderr, "toolfold eval-pii: no set named %q; use one of %s, all\n", n, piiSetNames())
				return exitUsage
			}
		}
	}
	for k, t := range targets {
		if k > 0 {
			fmt.Fprintln(stdout)
		}
		if code := evalOne(det, opts, t.name, t.path, *misses && !strings.Contains(t.name, "holdout"), stdout, stderr); code != exitOK {
			return code
		}
	}
	return exitOK
}

func evalOne(det *rewrite.Detector, opts rewrite.Options, name, path string, misses bool, stdout, stderr io.Writer) int {
	f, err := os.Open(path)
	if err != nil {
		return fail(stderr, "%v (give a labelled JSONL file with --data)", err)
	}
	defer f.Close()
	cases, err := rewrite.ReadCases(f)
	if err != nil {
		return fail(stderr, "%s: %v", path, err)
	}
	ev := rewrite.Evaluate(det, cases)
	fmt.Fprintf(stdout, "%s: %d cases from %s; phone regions: %s\n\n", name, len(cases), path, orNone(opts.PhoneRegions))
	fmt.Fprint(stdout, ev.Table())
	if ev.Unscored > 0 {
		fmt.Fprintf(stdout, "\n%d detections of types the file does not label (secrets, custom) were not scored\n", ev.Unscored)
	}
	if misses {
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
