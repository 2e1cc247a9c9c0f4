package rewrite

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOrigins: a token remembers the tool whose result minted it; a later
// result holding the same value adds its tool (at most four); the client
// is an origin only when it minted the token first.
func TestOrigins(t *testing.T) {
	v := newTestVault(t, Limits{})
	v.From("crm.get").Tokenize("ann@example.com")
	v.From("mail.read").Tokenize("from ann@example.com")
	v.From(OriginClient).Tokenize("ann@example.com")
	v.From(OriginClient).Tokenize("bob@example.com")
	v.From("crm.get").Tokenize("bob@example.com")
	for _, o := range []string{"a.1", "a.2", "a.3", "a.4"} {
		v.From(o).Tokenize("ann@example.com")
	}
	got, ok := v.Describe("[EMAIL_1]")
	want := TokenInfo{Token: "[EMAIL_1]", Type: "EMAIL", Value: "ann@example.com", Origin: "crm.get",
		Origins: []string{"crm.get", "mail.read", "a.1", "a.2"}}
	if !ok || !cmp.Equal(got, want) {
		t.Errorf("Describe([EMAIL_1]) = %+v, %v; want %+v", got, ok, want)
	}
	if got, _ := v.Describe("[EMAIL_2]"); got.Origin != OriginClient || !cmp.Equal(got.Origins, []string{OriginClient, "crm.get"}) {
		t.Errorf("[EMAIL_2] origins %q", got.Origins)
	}
	if _, ok := v.Describe("[EMAIL_9]"); ok {
		t.Error("Describe of an unknown token succeeded")
	}
	if v.Origin() != "" || v.From("x.y").Len() != v.Len() {
		t.Error("a view must share the vault")
	}
	var none *Vault
	if none.From("x.y") != nil {
		t.Error("From of a nil vault is not nil")
	}
}

func TestTokensIn(t *testing.T) {
	v := newTestVault(t, Limits{})
	v.From("crm.get").Tokenize("ann@example.com and +1 202-555-0143 and bob@example.com")
	args := json.RawMessage(`{"to":["[EMAIL_1]","[EMAIL_99]"],"[EMAIL_2]":"call [PHONE_1] or [EMAIL_1]"}`)
	var names []string
	for _, i := range v.TokensIn(args) {
		names = append(names, i.Token+" "+i.Origin)
	}
	if want := []string{"[EMAIL_1] crm.get", "[EMAIL_2] crm.get", "[PHONE_1] crm.get"}; !cmp.Equal(names, want) {
		t.Errorf("TokensIn = %q, want %q", names, want)
	}
	var dec any
	_ = json.Unmarshal(args, &dec)
	if got := v.TokensIn(dec); len(got) != 3 {
		t.Errorf("TokensIn(decoded) found %d tokens, want 3", len(got))
	}
	if got := FindTokens("[EMAIL_1] [X_9] [EMAIL_1] [nope_1]"); !cmp.Equal(got, []string{"[EMAIL_1]", "[X_9]"}) {
		t.Errorf("FindTokens = %q", got)
	}
}

// TestShowJSON: values a script typed become tokens from the client; the
// session's tokens and foreign ones stay as written (TokenizeJSON would
// vault them again as [TOKEN_n]).
func TestShowJSON(t *testing.T) {
	v := newTestVault(t, Limits{})
	v.From("crm.get").Tokenize("ann@example.com")
	out, err := v.ShowJSON([]byte(`{"to":["[EMAIL_1]","eve@attacker.example","[EMAIL_42]"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"to":["[EMAIL_1]","[EMAIL_2]","[EMAIL_42]"]}`; string(out) != want {
		t.Errorf("ShowJSON = %s, want %s", out, want)
	}
	if i, _ := v.Describe("[EMAIL_2]"); i.Origin != OriginClient {
		t.Errorf("typed value's origin %q", i.Origin)
	}
}

func TestGlimpse(t *testing.T) {
	for _, tc := range []struct{ typ, value, want string }{
		{"EMAIL", "eve@attacker.example", "an address at attacker.example"},
		{"CREDIT_CARD", "4111 1111 1111 1234", "a card ending 1234"},
		{"IBAN", "DE89 3704 0044 0532 0130 00", "an IBAN of DE ending 3000"},
		{"PHONE", "+44 20 7946 0958", "a number ending 58"},
		{"US_SSN", "536-22-1234", "an SSN ending 1234"},
		{"IP_ADDRESS", "203.0.113.9", "an address starting 203.…"},
		{"SECRET", "ghp_abcdefghijklmnop", `a secret starting "ghp_"…, 20 bytes`},
		{"NAME", "Jane van Doe", "a name with initials J. v. D."},
		{"EMPLOYEE_ID", "EMP-123456", "10 characters ending …56"},
		{"TOKEN", "[EMAIL_7]", `the text "[EMAIL_7]" (no one's data)`},
	} {
		if got := (TokenInfo{Type: tc.typ, Value: tc.value}).Glimpse(); got != tc.want {
			t.Errorf("Glimpse(%s %q) = %q, want %q", tc.typ, tc.value, got, tc.want)
		}
	}
}
