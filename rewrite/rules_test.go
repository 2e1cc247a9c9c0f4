package rewrite

import "testing"

// TestRulesCompile: every embedded gitleaks rule compiles with Go's
// regexp, so none is silently left out.
func TestRulesCompile(t *testing.T) {
	rs, bad := compileRules(gitleaksJSON)
	if len(bad) > 0 {
		t.Errorf("rules left out: %v", bad)
	}
	if n := len(rs.lists); n < 100 {
		t.Errorf("only %d keyword pairs; the rule file looks truncated", n)
	}
}

// TestRuleSecrets: providers the hand-written detectors do not know are
// found through the rule set, after any punctuation; look-alikes are not.
func TestRuleSecrets(t *testing.T) {
	d := mustDetector(t, Defaults())
	hex64 := "b4ffeb21e3a15c486b06996e42e87f18f785102b28cc56a74202fed5977449c8"
	for _, tc := range []struct{ in, want string }{
		{"tok dop_v1_" + hex64 + ", ok", "SECRET:dop_v1_" + hex64},
		{"[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]", "SECRET: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"},
		{"npm_Q6L9TejzYh5dhQ1d2xGJGt7IsIaibbxQOMRo", "SECRET:npm_Q6L9TejzYh5dhQ1d2xGJGt7IsIaibbxQOMRo"},
		{"x=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&y", "SECRET: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"},
		{"npm install", ""},
		{"hf_hub_download", ""},
		{"the sky is SKY", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestMoreShapes: IPv6 with an IPv4 tail or a leading "::", and secrets
// whose prefix alone identifies them.
func TestMoreShapes(t *testing.T) {
	d := mustDetector(t, Defaults())
	tg := "3149699521:AAuK1k27bpsBAiiefshKp8sIviYSEMGL8y6"
	for _, tc := range []struct{ in, want string }{
		{"ip ::ffff:192.0.2.128 up", "IP_ADDRESS:::ffff:192.0.2.128"},
		{"(fe80::1)", "IP_ADDRESS:fe80::1"},
		{"64:ff9b::192.0.2.33", "IP_ADDRESS:64:ff9b::192.0.2.33"},
		{"std::vector a::b dead::beef", ""},
		{"from ::1 port 22", "IP_ADDRESS:::1"},
		{"[::1]:8080", "IP_ADDRESS:::1"},
		{"Foo::1 x::2 :: ::abc", ""},
		{"'NRAK-LC6LO4FUALZWHYQLPBTUREY7LHV'", "SECRET:NRAK-LC6LO4FUALZWHYQLPBTUREY7LHV"},
		{"- " + tg + "\n", "SECRET:" + tg},
		{"at 12:30:45", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}
