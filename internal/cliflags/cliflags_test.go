package cliflags

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"
)

// TestParseInterspersed: flags after positional arguments are read, and
// "--" keeps what follows it positional.
func TestParseInterspersed(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	detail := fs.String("detail", "", "")
	pos, err := Parse(fs, []string{"read", "a", "--detail", "full", "file", "--", "--detail"})
	if err != nil {
		t.Fatal(err)
	}
	if *detail != "full" || !slices.Equal(pos, []string{"read", "a", "file", "--detail"}) {
		t.Fatalf("detail %q, positional %q", *detail, pos)
	}
}

// TestLoggerLevel: a known level makes a logger; another says what to use.
func TestLoggerLevel(t *testing.T) {
	if _, err := Logger("warn", io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := Logger("loud", io.Discard); err == nil || !strings.Contains(err.Error(), "use debug, info, warn or error") {
		t.Fatalf("err = %v", err)
	}
}
