package tokens

import "testing"

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
