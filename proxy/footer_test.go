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
func TestFooterCountsTokensKeptOut(t *testing.T) {
	_, cs := startProxy(t, testConfig(httpUpstream(t, "remote", newTestServer())))
	re := regexp.MustCompile(`\[toolfold: 1 tool call, ([\d,]+) tokens \(([^)]+)\) of results kept out of context`)
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

func TestFormatCount(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 159936: "159,936", 1234567: "1,234,567"} {
		if got := formatCount(n); got != want {
			t.Errorf("formatCount(%d) = %q, want %q", n, got, want)
		}
	}
}
