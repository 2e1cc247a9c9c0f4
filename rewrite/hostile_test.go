package rewrite

import (
	"strings"
	"testing"
)

// hostileInputs repeat a short pattern that could make a careless scanner
// rescan the same bytes from every position (quadratic time).
var hostileInputs = []string{
	"a.", "a-", "1.", "1 ", "1-", "(", "((1)", "[", "[EMAIL_", "[A_1", "+1", "eyJ-", "eyJa.", "sk-", "ghp_-",
	"a@", "@a.", "a:", "1:", "-----BEGIN ", "GB82 ", "Bearer ", "7", "x@x.", "::", "0:0:",
	// Table rows (table.go): one long row, many short rows under a phone
	// header, rows that end their block at every line.
	"12 34 56,", "Phone,Tel\n12 34 56,78 90 12\n", "|12 34 56 7|\n", "\t12 345 67\n", ",\n12 345 67,1,\n",
	strings.Repeat(",", 64) + "1234567\n", "x,1234567\n|,1234567\n", "\"a,\",12 34 56 7\n",
	// Names and street lines (names.go, address.go): words joined by '-'
	// or '\'', labels on one long line, CJK runs with spaces, street
	// words, salutations, JSON names.
	"A-", "a'", "Jo-", "Name: ", "A: ", "中 ", "路1 ", "1 A ", "Dear ", "Mr. ", "John ", "Via ", "P.O. Box ",
	"\"Jo\" <", "<a@b.co>", "Name,Email\nJo Do,a@b.co\n", "Hauptstraße ",
}

// TestHostileInputsLinear tokenizes 1 MiB of each pattern: a quadratic
// path would not finish within the test binary's deadline.
func TestHostileInputsLinear(t *testing.T) {
	o := Defaults()
	o.PhoneRegions = []string{"US", "GB", "DE"}
	o.Custom = []CustomPattern{{Name: "seven", Pattern: "7"}}
	d := mustDetector(t, o)
	for _, p := range hostileInputs {
		s := strings.Repeat(p, (1<<20)/len(p))
		v := NewVault(d, Limits{})
		if back := v.Detokenize(v.Tokenize(s)); back != s {
			t.Errorf("%q: round trip failed", p)
		}
	}
}
