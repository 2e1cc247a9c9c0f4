package tokens

import (
	"strings"
	"testing"
)

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
	} {
		if got := Count(tc.in); got != tc.want {
			t.Errorf("Count(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	// Longer text must count well under one token per byte.
	s := "search_tools finds the tools of the MCP servers behind this proxy; run_script calls them."
	if n := Count(s); n <= 5 || n >= len(s)/2 {
		t.Errorf("Count(%q) = %d: implausible for %d bytes", s, n, len(s))
	}
}

func TestEstimate(t *testing.T) {
	short := "The quick brown fox jumps over the lazy dog. "
	if Estimate(short) != Count(short) {
		t.Errorf("short text: Estimate %d != Count %d", Estimate(short), Count(short))
	}
	long := strings.Repeat(short+"Ünïcödé ", 20000) // ~1 MiB, cut inside a rune somewhere
	exact, est := Count(long), Estimate(long)
	if diff := float64(est-exact) / float64(exact); diff > 0.02 || diff < -0.02 {
		t.Errorf("long text: Estimate %d vs Count %d (%.1f%% off)", est, exact, 100*diff)
	}
}
