package telemetry

import (
	"strings"
	"testing"
)

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"short", "short"},
		{strings.Repeat("a", maxCaptured), strings.Repeat("a", maxCaptured)},
		{strings.Repeat("a", maxCaptured+5), strings.Repeat("a", maxCaptured) + "…[5 more bytes]"},
		{"a" + strings.Repeat("é", maxCaptured/2), "a" + strings.Repeat("é", maxCaptured/2-1) + "…[2 more bytes]"},
	} {
		if got := truncate(tc.in); got != tc.want {
			t.Errorf("truncate(%d bytes) = %d bytes ...%q, want %d bytes", len(tc.in), len(got), got[max(0, len(got)-20):], len(tc.want))
		}
	}
}
