package main

import (
	"bytes"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestUsage(t *testing.T) {
	if code, _, errs := runCLI(t, "frobnicate"); code != exitUsage || !strings.Contains(errs, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: %d %q", code, errs)
	}
	if code, _, errs := runCLI(t); code != exitUsage || !strings.Contains(errs, "Usage:") {
		t.Errorf("no args: %d %q", code, errs)
	}
}

// TestHelpListsEveryCommandAndFlag: each command's own flags, as its -h
// prints them, appear in the usage.
func TestHelpListsEveryCommandAndFlag(t *testing.T) {
	for _, cmd := range []string{"bench", "eval-search", "eval-pii", "replay-server"} {
		if !strings.Contains(usage, "toolfold-lab "+cmd+" ") {
			t.Errorf("--help does not list %q", cmd)
			continue
		}
		_, _, errs := runCLI(t, cmd, "-h")
		for _, line := range strings.Split(errs, "\n") {
			name, ok := strings.CutPrefix(line, "  -")
			if !ok {
				continue
			}
			name, _, _ = strings.Cut(name, " ")
			if name != "log-level" && !strings.Contains(usage, "--"+name) {
				t.Errorf("--help lacks %s's flag --%s", cmd, name)
			}
		}
	}
}

func TestEvalSearchMeetsBM25Floor(t *testing.T) {
	code, out, errs := runCLI(t, "eval-search", "--corpus", "../../index/testdata/search-corpus")
	if code != 0 || !strings.Contains(out, "| all | 195 |") {
		t.Fatalf("eval-search: %d %q %q", code, out, errs)
	}
}

// TestEvalSearchLines: --lines answers a query per input line with the
// ranked ids as a JSON array.
func TestEvalSearchLines(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"eval-search", "--corpus", "../../index/testdata/search-corpus", "--lines"}, strings.NewReader("list airtable bases\n"), &out, &errb)
	if code != exitOK || !strings.HasPrefix(out.String(), `["`) || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("eval-search --lines: %d %q %q", code, out.String(), errb.String())
	}
}
