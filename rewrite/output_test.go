package rewrite

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestScanOutput(t *testing.T) {
	v := NewVault(mustDetector(t, Defaults()), Limits{})
	if got := v.Tokenize("Ann ann@example.com, call 415-555-0132"); got != "Ann [EMAIL_1], call [PHONE_1]" {
		t.Fatalf("Tokenize: %q", got)
	}
	// What a script decoded itself: base64 of a field it was given.
	decoded, _ := base64.StdEncoding.DecodeString(base64.StdEncoding.EncodeToString([]byte("ann@example.com")))
	for _, tc := range []struct{ in, want string }{
		{"decoded: " + string(decoded), "decoded: [EMAIL_1]"},
		{"again [EMAIL_1] and [PHONE_1]", "again [EMAIL_1] and [PHONE_1]"}, // own tokens stay
		{"number 415-555-0132", "number [PHONE_1]"},                        // known, though no word says phone
		{"id x415-555-01329", "id x415-555-01329"},                         // not as a whole word
		{"new bob@example.com", "new [EMAIL_2]"},                           // minted
		{"card:4111111111111111", "card:[CREDIT_CARD_1]"},                  // after a label
		{"forged [EMAIL_99]", "forged [TOKEN_1]"},                          // not ours: a literal
		{"[toolfold: 2 tool calls, 1,234 tokens (5 KB) of results kept out of context, 12ms]", "[toolfold: 2 tool calls, 1,234 tokens (5 KB) of results kept out of context, 12ms]"},
	} {
		if got := v.ScanOutput(tc.in); got != tc.want {
			t.Errorf("ScanOutput(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := v.Detokenize("forged [TOKEN_1]"); got != "forged [EMAIL_99]" {
		t.Errorf("literal round trip: %q", got)
	}
	var nilVault *Vault
	if got := nilVault.ScanOutput("ann@example.com"); got != "ann@example.com" {
		t.Errorf("nil vault changed output: %q", got)
	}
}

// TestScanOutputLinear: the known-value pass costs a look-up per word
// start, not per held value.
func TestScanOutputLinear(t *testing.T) {
	v := NewVault(mustDetector(t, Defaults()), Limits{})
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		b.WriteString("user")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("@example.com ")
	}
	v.Tokenize(b.String())
	out := v.ScanOutput(strings.Repeat("nothing to see here ", 5000) + "userxx@example.com")
	if !strings.HasSuffix(out, "[EMAIL_3]") {
		t.Errorf("tail: %q", out[len(out)-40:])
	}
}
