package rewrite

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func newTestVault(t testing.TB, l Limits) *Vault {
	t.Helper()
	o := Defaults()
	o.PhoneRegions = []string{"US"}
	return NewVault(mustDetector(t, o), l)
}

func TestTokenizeStable(t *testing.T) {
	v := newTestVault(t, Limits{})
	a := v.Tokenize("mail ann@example.com or bob@example.com, again ann@example.com; card 4111111111111111")
	want := "mail [EMAIL_1] or [EMAIL_2], again [EMAIL_1]; card [CREDIT_CARD_1]"
	if a != want {
		t.Fatalf("got  %q\nwant %q", a, want)
	}
	if b := v.Tokenize("to: bob@example.com"); b != "to: [EMAIL_2]" {
		t.Errorf("second text: %q", b)
	}
	if got := v.Detokenize("mail [EMAIL_2] today about [CREDIT_CARD_1]"); got != "mail bob@example.com today about 4111111111111111" {
		t.Errorf("Detokenize: %q", got)
	}
}

// Unknown and foreign tokens pass through; a literal token-shaped text is
// vaulted so that it never turns into a value.
func TestTokenLiterals(t *testing.T) {
	v := newTestVault(t, Limits{})
	other := newTestVault(t, Limits{})
	other.Tokenize("x@example.com") // other's [EMAIL_1]
	in := "literal [EMAIL_1] then real carol@example.com and [FOO_1] and [EMAIL_x]"
	tok := v.Tokenize(in)
	if strings.Contains(tok, "carol") || strings.Count(tok, "[EMAIL_1]") != 1 {
		t.Fatalf("Tokenize: %q", tok)
	}
	if want := "literal [TOKEN_1] then real [EMAIL_1] and [FOO_1] and [EMAIL_x]"; tok != want {
		t.Errorf("got  %q\nwant %q", tok, want)
	}
	if back := v.Detokenize(tok); back != in {
		t.Errorf("round trip: %q", back)
	}
	if got := v.Detokenize("[EMAIL_9] [PHONE_1] [TOKEN_7]"); got != "[EMAIL_9] [PHONE_1] [TOKEN_7]" {
		t.Errorf("unknown tokens changed: %q", got)
	}
	if got := other.Detokenize(tok); strings.Contains(got, "carol") {
		t.Errorf("another session's vault restored a value: %q", got)
	}
}

func TestVaultBounds(t *testing.T) {
	v := newTestVault(t, Limits{MaxEntries: 2, TTL: time.Minute})
	now := time.Unix(1000, 0)
	v.now = func() time.Time { return now }
	v.Tokenize("a@example.com b@example.com c@example.com")
	if v.Len() != 2 {
		t.Fatalf("Len = %d, want 2", v.Len())
	}
	if got := v.Detokenize("[EMAIL_1] [EMAIL_3]"); got != "[EMAIL_1] c@example.com" {
		t.Errorf("after eviction: %q", got)
	}
	// Numbers are never reused: a@ comes back with a new token.
	if got := v.Tokenize("a@example.com"); got != "[EMAIL_4]" {
		t.Errorf("re-tokenized: %q", got)
	}
	now = now.Add(2 * time.Minute)
	if got := v.Detokenize("[EMAIL_4]"); got != "[EMAIL_4]" {
		t.Errorf("expired token restored: %q", got)
	}
	b := newTestVault(t, Limits{MaxBytes: 64})
	b.Tokenize(strings.Repeat("x", 40) + "@example.com " + strings.Repeat("y", 40) + "@example.com")
	if b.Len() != 1 {
		t.Errorf("byte bound: Len = %d, want 1", b.Len())
	}
}

// Vaults never show values when printed or logged.
func TestVaultPrintsNoValues(t *testing.T) {
	v := newTestVault(t, Limits{})
	v.Tokenize("dave@example.com")
	for _, s := range []string{v.String(), v.LogValue().String()} {
		if strings.Contains(s, "dave") {
			t.Errorf("value shown: %q", s)
		}
	}
}

func TestTokenizeJSON(t *testing.T) {
	v := newTestVault(t, Limits{})
	in := `{"users":[{"email":"ann@example.com","phone":"12 34 56 78","note":"mail ann@example.com\nor call +44 20 7946 0958"}],` +
		`"ann@example.com":{"card":4111111111111111,"n":42,"ok":true,"pem":"-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----"}}`
	out, err := v.TokenizeJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"users":[{"email":"[EMAIL_1]","phone":"[PHONE_1]","note":"mail [EMAIL_1]\nor call [PHONE_2]"}],` +
		`"[EMAIL_1]":{"card":"[CREDIT_CARD_1]","n":42,"ok":true,"pem":"[SECRET_1]"}}`
	if string(out) != want {
		t.Fatalf("got  %s\nwant %s", out, want)
	}
	if !json.Valid(out) {
		t.Fatal("invalid JSON out")
	}
	back, err := v.DetokenizeJSON([]byte(`{"to":"[EMAIL_1]","body":"key: [SECRET_1]","[EMAIL_1]":["x [PHONE_2] y"],"z":"[EMAIL_7]"}`))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(back, &got); err != nil {
		t.Fatalf("%v: %s", err, back)
	}
	if got["to"] != "ann@example.com" || got["body"] != "key: -----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----" ||
		got["ann@example.com"].([]any)[0] != "x +44 20 7946 0958 y" || got["z"] != "[EMAIL_7]" {
		t.Errorf("detokenized: %s", back)
	}
	if _, err := v.TokenizeJSON([]byte(`{"a":"unterminated`)); err == nil {
		t.Error("malformed JSON: no error")
	}
}

func TestTokenizeValue(t *testing.T) {
	v := newTestVault(t, Limits{})
	in := map[string]any{"who": []any{"ann@example.com", 4111111111111111.0, 7.0}, "ann@example.com": nil}
	out := v.TokenizeValue(in).(map[string]any)
	if in["who"].([]any)[0] != "ann@example.com" {
		t.Error("input modified")
	}
	who := out["who"].([]any)
	if who[0] != "[EMAIL_1]" || who[1] != "[CREDIT_CARD_1]" || who[2] != 7.0 {
		t.Errorf("got %v", out)
	}
	if _, ok := out["[EMAIL_1]"]; !ok {
		t.Errorf("key not tokenized: %v", out)
	}
	args := v.DetokenizeArgs(json.RawMessage(`{"to":"[EMAIL_1]"}`)).(json.RawMessage)
	if string(args) != `{"to":"ann@example.com"}` {
		t.Errorf("DetokenizeArgs: %s", args)
	}
}
