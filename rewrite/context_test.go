package rewrite

import "testing"

// TestContextWords: words near an ambiguous number decide its type.
func TestContextWords(t *testing.T) {
	d := mustDetector(t, Defaults())
	for _, tc := range []struct{ in, want string }{
		{"credit card 060426070011 points", "CREDIT_CARD:060426070011"}, // Luhn-valid, brand unknown
		{"order 060426070011 shipped", ""},
		{"card 060426070012", ""}, // Luhn-invalid
		{"SSN 536 22 1234", "US_SSN:536 22 1234"},
		{"room 536 22 1234", ""},
		{"tel 5362 21234", "PHONE:5362 21234"},
		{"see 020 7946 0958", "PHONE:020 7946 0958"},
		{"DOB 020 7946 0958", ""},
		{"born 06 12 1980", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
