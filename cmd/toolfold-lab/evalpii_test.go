package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalPII(t *testing.T) {
	data := filepath.Join("..", "..", "rewrite", "testdata", "presidio_synth_v2.cases.jsonl")
	code, out, errs := runCLI(t, "eval-pii", "--data", data)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"1500 cases", "phone regions: US", "precision", "CREDIT_CARD", "US_SSN", "overall"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// A tiny file with one hit, one miss and one false positive.
	small := filepath.Join(t.TempDir(), "cases.jsonl")
	lines := `{"id":"a","text":"mail ann@example.com","spans":[{"type":"EMAIL","value":"ann@example.com"}]}
{"id":"b","text":"nothing here","spans":[{"type":"PHONE","value":"12345"}]}
{"id":"c","text":"ip 10.1.2.3","spans":[]}
`
	if err := os.WriteFile(small, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, "eval-pii", "--data", small, "--misses")
	if code != exitOK || !strings.Contains(out, "overall          1    1    1    0.5000  0.5000 0.5000") ||
		!strings.Contains(out, "b\tmissed\tPHONE") || !strings.Contains(out, "c\tfalse positive\tIP_ADDRESS") {
		t.Errorf("small file: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "eval-pii", "--data", filepath.Join(t.TempDir(), "none.jsonl")); code == exitOK || !strings.Contains(errs, "--data") {
		t.Errorf("missing file: %d %q", code, errs)
	}
	if code, _, errs := runCLI(t, "eval-pii", "--phone-regions", "Atlantis"); code != exitUsage || !strings.Contains(errs, "use one of") {
		t.Errorf("bad region: %d %q", code, errs)
	}
	// A named holdout set: its figures, never its misses.
	dir := filepath.Join("..", "..", "rewrite", "testdata")
	code, out, errs = runCLI(t, "eval-pii", "--dir", dir, "--set", "examples-holdout", "--misses")
	if code != exitOK || !strings.Contains(out, "examples-holdout: 535 cases") || strings.Contains(out, "missed\t") {
		t.Errorf("examples-holdout: exit %d %s\n%s", code, errs, out)
	}
	// The NAME and ADDRESS sets: those two types only, Presidio's word by
	// word too.
	code, out, errs = runCLI(t, "eval-pii", "--dir", dir, "--set", "people-develop,presidio-names-holdout")
	if code != exitOK || !strings.Contains(out, "NAME ") || !strings.Contains(out, "ADDRESS ") || strings.Contains(out, "EMAIL ") ||
		strings.Count(out, "word by word:") != 1 {
		t.Errorf("name sets: exit %d %s\n%s", code, errs, out)
	}
}
