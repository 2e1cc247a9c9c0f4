package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolfold/toolfold/rewrite"
)

// cmdEvalPII scores the PII detectors on a labelled file of JSON lines
// ({"id","text","spans":[{"type","value"}]}): precision, recall and F2
// per type and overall. A detection counts when its type and exact text
// match a label.
func cmdEvalPII(args []string, stdout, stderr io.Writer) int {
	fs, _ := newFlags("eval-pii", stderr, "warn")
	data := fs.String("data", "rewrite/testdata/presidio_synth_v2.cases.jsonl", "labelled cases, JSON lines")
	regions := fs.String("phone-regions", "US", "comma-separated regions whose national phone formats count (\"\" for none)")
	misses := fs.Bool("misses", false, "also list every false positive and missed value")
	if pos, err := parse(fs, args); err != nil {
		return exitUsage
	} else if len(pos) > 0 {
		fmt.Fprintf(stderr, "toolfold eval-pii: unexpected argument %q; give the file with --data\n", pos[0])
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
	f, err := os.Open(*data)
	if err != nil {
		return fail(stderr, "%v (give a labelled JSONL file with --data)", err)
	}
	defer f.Close()
	cases, err := rewrite.ReadCases(f)
	if err != nil {
		return fail(stderr, "%s: %v", *data, err)
	}
	ev := rewrite.Evaluate(det, cases)
	fmt.Fprintf(stdout, "%d cases from %s; phone regions: %s\n\n", len(cases), *data, orNone(opts.PhoneRegions))
	fmt.Fprint(stdout, ev.Table())
	if ev.Unscored > 0 {
		fmt.Fprintf(stdout, "\n%d detections of types the file does not label (secrets, custom) were not scored\n", ev.Unscored)
	}
	if *misses {
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
