package rewrite

import "testing"

// TestBoundariesAndSpellings: a value right after a label's punctuation,
// in brackets or in a URL parameter is found; so is one written with
// fullwidth forms, a zero-width character or percent-encoding, and the
// span covers the original bytes.
func TestBoundariesAndSpellings(t *testing.T) {
	d := mustDetector(t, Defaults())
	for _, tc := range []struct{ in, want string }{
		{"card:4111111111111111", "CREDIT_CARD:4111111111111111"},
		{"ip:8.8.4.4", "IP_ADDRESS:8.8.4.4"},
		{"ssn:536-22-1234", "US_SSN:536-22-1234"},
		{"SSN#536-22-1234", "US_SSN:536-22-1234"},
		{`"4111111111111111"`, "CREDIT_CARD:4111111111111111"},
		{"(4111111111111111)", "CREDIT_CARD:4111111111111111"},
		{"[8.8.4.4]", "IP_ADDRESS:8.8.4.4"},
		{"?card=4111111111111111&x=1", "CREDIT_CARD:4111111111111111"},
		{"SSN 536 22 1234", "US_SSN:536 22 1234"},
		{"joe＠example.com", "EMAIL:joe＠example.com"},
		{"?to=joe%40example.com&x=1", "EMAIL:joe%40example.com"},
		{"joe\u200b@example.com", "EMAIL:joe\u200b@example.com"},
		{"ｊｏｅ@ｅｘａｍｐｌｅ.com.", "EMAIL:ｊｏｅ@ｅｘａｍｐｌｅ.com"},
		{"card ４１１１１１１１１１１１１１１１", "CREDIT_CARD:４１１１１１１１１１１１１１１１"},
		{"müller@bücher.de", "EMAIL:müller@bücher.de"},
		{"用户@例子.广告", "EMAIL:用户@例子.广告"},
		{"Zoë@test.co.jp", "EMAIL:Zoë@test.co.jp"},
		// Still not values.
		{"12:30:45", ""},
		{"v1.2.3.4", ""},
		{"price $4111111111111111", ""},
		{"100%25 done", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNormalizedTokenize: the original bytes are replaced, nothing of the
// value is left around its token, and the round trip gives them back.
func TestNormalizedTokenize(t *testing.T) {
	v := NewVault(mustDetector(t, Defaults()), Limits{})
	for _, in := range []string{"a joe＠example.com b", "u?to=joe%40example.com&x", "joe\u200b@example.com"} {
		out := v.Tokenize(in)
		if out == in || containsAny(out, "joe", "example") {
			t.Errorf("Tokenize(%q) = %q", in, out)
		}
		if back := v.Detokenize(out); back != in {
			t.Errorf("round trip %q -> %q -> %q", in, out, back)
		}
	}
}

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		for i := 0; i+len(x) <= len(s); i++ {
			if s[i:i+len(x)] == x {
				return true
			}
		}
	}
	return false
}

// TestBackMerges: spans that meet inside one character's expansion do
// not overlap once mapped back.
func TestBackMerges(t *testing.T) {
	n := normalize("aﬁb") // "afib": 'f' and 'i' both come from bytes 1..4
	got := n.back([]Span{{Start: 0, End: 2, Type: "X"}, {Start: 2, End: 4, Type: "Y"}})
	want := []Span{{Start: 0, End: 5, Type: "X"}}
	if len(got) != 1 || got[0] != want[0] {
		t.Errorf("back = %v, want %v", got, want)
	}
}
