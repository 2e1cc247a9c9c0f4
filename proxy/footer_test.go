package proxy

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFooterCountsTokensKeptOut: the run_script footer reports the tokens
// of the results the script consumed, counted with the same tokenizer as
// check and bench, and they grow with the results.
// dur matches a footer's duration (formatDuration).
const dur = `(?:\d+ ms|\d+\.\d s)`

func TestFooterCountsTokensKeptOut(t *testing.T) {
	_, cs := startProxy(t, testConfig(httpUpstream(t, "remote", newTestServer())))
	re := regexp.MustCompile(`\[toolfold: 1 tool call, ([\d,]+) tokens of results kept out of context, ` + dur + `\]`)
	tokensFor := func(words int) int {
		text, isErr := runLua(t, cs, `local e = tools.remote.echo_text{text = string.rep("alpha beta ", `+strconv.Itoa(words)+`)} return #e`)
		m := re.FindStringSubmatch(text)
		if isErr || m == nil {
			t.Fatalf("no token footer:\n%s", text)
		}
		n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
		return n
	}
	small, big := tokensFor(10), tokensFor(5000)
	if small < 10 || small > 60 {
		t.Errorf("10 repeats: %d tokens", small)
	}
	if big < 5000 || big > 12000 {
		t.Errorf("5000 repeats of two words: %d tokens", big)
	}
}

// TestFooterSaysOnlyWhatHappened: a run's footer names the tokens kept
// out of context only when there were some, and no byte count beside
// them (the bridge's bytes counted other results than the tokens, which
// read as "89 tokens (15 B)"): no "0 tokens (0 B)" after a run that
// called nothing or whose calls all failed.
func TestFooterSaysOnlyWhatHappened(t *testing.T) {
	_, cs := startProxy(t, testConfig(httpUpstream(t, "remote", newTestServer())))
	for _, tc := range []struct {
		name, code string
		want       *regexp.Regexp
	}{
		{"no calls", `return 1`, regexp.MustCompile(`(?m)^\[toolfold: 0 tool calls, ` + dur + `\]$`)},
		{"a failed call", `local ok = pcall(tools.remote.fail, {}) return ok`, regexp.MustCompile(`(?m)^\[toolfold: 1 tool call, ` + dur + `\]$`)},
		{"calls", `local a = tools.remote.add{a = 1, b = 2} local b = tools.remote.echo_text{text = "hello"} return a.sum`,
			regexp.MustCompile(`(?m)^\[toolfold: 2 tool calls, \d+ tokens of results kept out of context, ` + dur + `\]$`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, _ := runLua(t, cs, tc.code)
			if !tc.want.MatchString(text) {
				t.Errorf("footer:\n%s\nwant it to match %s", text, tc.want)
			}
		})
	}
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 159936: "159,936", 1234567: "1,234,567"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}
