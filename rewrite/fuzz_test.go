package rewrite

import (
	"encoding/json"
	"testing"
)

// FuzzRoundTrip: Detokenize(Tokenize(x)) == x for any text, including
// text that already holds tokens, and the same for JSON texts.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{
		"", "plain", "ann@example.com", "[EMAIL_1]", "[EMAIL_1] ann@example.com [EMAIL_2]",
		"[TOKEN_1][TOKEN_1]", "call +44 20 7946 0958 or 415-555-0132", "[[EMAIL_1]]", "[EMAIL_[PHONE_1]]",
		"card 4111 1111 1111 1111 ip 10.0.0.1 ssn 078-05-1120", `{"a":"ann@example.com","b":[1,"[EMAIL_1]"]}`,
		"-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----", "GB82 WEST 1234 5698 7654 32",
		"ｊｏｅ＠example.com", "u?to=joe%40example.com&x=%2B44%2020%207946%200958", "joe\u200b@example.com ﬁ ⒈2.3.4",
	} {
		f.Add(s)
	}
	o := Defaults()
	o.PhoneRegions = []string{"US", "GB"}
	o.Custom = []CustomPattern{{Name: "digit", Pattern: `7`}}
	d, err := NewDetector(o)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := NewVault(d, Limits{})
		tok := v.Tokenize(s)
		if back := v.Detokenize(tok); back != s {
			t.Fatalf("text round trip\n in  %q\n tok %q\n out %q", s, tok, back)
		}
		// A second pass over the tokenized text is still reversible.
		tok2 := v.Tokenize(tok)
		if back := v.Detokenize(v.Detokenize(tok2)); back != s {
			t.Fatalf("double round trip\n in  %q\n out %q", s, back)
		}
		if json.Valid([]byte(s)) {
			out, err := v.TokenizeJSON([]byte(s))
			if err != nil {
				t.Fatalf("TokenizeJSON(%q): %v", s, err)
			}
			if !json.Valid(out) {
				t.Fatalf("TokenizeJSON(%q) = %q: invalid JSON", s, out)
			}
			back, err := v.DetokenizeJSON(out)
			if err != nil {
				t.Fatal(err)
			}
			var a, b any
			_ = json.Unmarshal([]byte(s), &a)
			_ = json.Unmarshal(back, &b)
			if !sameJSON(a, b) {
				t.Fatalf("JSON round trip\n in  %s\n tok %s\n out %s", s, out, back)
			}
		}
	})
}

// sameJSON compares decoded JSON, allowing a number to come back as the
// string of its digits (numbers that were values become tokens).
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(bm) != len(a) {
			return false
		}
		for k, x := range a {
			if !sameJSON(x, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(bs) != len(a) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], bs[i]) {
				return false
			}
		}
		return true
	case float64:
		if s, ok := b.(string); ok {
			var f float64
			return json.Unmarshal([]byte(s), &f) == nil && f == a
		}
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
