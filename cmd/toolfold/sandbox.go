package main

import (
	"strings"

	"github.com/toolfold/toolfold/sandbox"
)

// sandboxLine is what `toolfold check` prints and serve logs about the
// isolation layers: "sandbox: full (…)" or "sandbox: degraded: no …",
// with the reasons a layer is missing.
func sandboxLine() string {
	l := sandbox.Detect()
	s := "sandbox: " + l.String()
	if len(l.Why) > 0 {
		s += " (" + strings.Join(l.Why, "; ") + ")"
	}
	return s
}
