package rewrite

import (
	"fmt"
	"strings"
	"testing"
)

func mustDetector(t testing.TB, o Options) *Detector {
	t.Helper()
	d, err := NewDetector(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// found renders what d finds in s as "TYPE:value" lines.
func found(d *Detector, s string) string {
	var parts []string
	for _, sp := range d.Find(s, nil) {
		parts = append(parts, sp.Type+":"+s[sp.Start:sp.End])
	}
	return strings.Join(parts, " | ")
}

func TestDetectPositives(t *testing.T) {
	o := Defaults()
	o.PhoneRegions = []string{"US", "GB", "DE"}
	d := mustDetector(t, o)
	for _, tc := range []struct{ in, want string }{
		{"mail alice.smith+tag@example.co.uk today", "EMAIL:alice.smith+tag@example.co.uk"},
		{"<bob@mail.example.org>.", "EMAIL:bob@mail.example.org"},
		{"call +1 415 555 0132 now", "PHONE:+1 415 555 0132"},
		{"+44 20 7946 0958", "PHONE:+44 20 7946 0958"},
		{"+41 (0)85 806 98 67", "PHONE:+41 (0)85 806 98 67"},
		{"office (415) 555-0132x123", "PHONE:(415) 555-0132x123"},
		{"ring 415.555.0132", "PHONE:415.555.0132"},
		{"US: 1-415-555-0132", "PHONE:1-415-555-0132"},
		{"or 1 (415) 555-0132", "PHONE:1 (415) 555-0132"},
		{"GB: 020 7946 0958", "PHONE:020 7946 0958"},
		{"DE: 030 1234 5678", "PHONE:030 1234 5678"},
		{"Phone: 12 34 56 78", "PHONE:12 34 56 78"},
		{`{"mobile": "5 55 12 34"}`, ""}, // one-digit groups need more than a key
		{"card 4111 1111 1111 1111 exp", "CREDIT_CARD:4111 1111 1111 1111"},
		{"card 4111-1111-1111-1111", "CREDIT_CARD:4111-1111-1111-1111"},
		{"amex 378282246310005", "CREDIT_CARD:378282246310005"},
		{"amex 3782 822463 10005", "CREDIT_CARD:3782 822463 10005"},
		{"mc 5555555555554444", "CREDIT_CARD:5555555555554444"},
		// Maestro: 16 digits or more alone; shorter ones after a card word.
		{"6759649826438453", "CREDIT_CARD:6759649826438453"},
		{"card 501864667909", "CREDIT_CARD:501864667909"},
		{`{"card_number": "664191236077"}`, "CREDIT_CARD:664191236077"},
		{"iban GB82 WEST 1234 5698 7654 32.", "IBAN:GB82 WEST 1234 5698 7654 32"},
		{"iban DE89370400440532013000", "IBAN:DE89370400440532013000"},
		// A country that uses IBANs at home, not in SWIFT's registry.
		{"pay to IR52 0008 4990 6003 7006 0334 69", "IBAN:IR52 0008 4990 6003 7006 0334 69"},
		{"ssn 078-05-1120", "US_SSN:078-05-1120"},
		{"SSN: 078051120", "US_SSN:078051120"},
		{"from 192.168.1.20:8080", "IP_ADDRESS:192.168.1.20"},
		{"ip 2001:db8::8a2e:370:7334 up", "IP_ADDRESS:2001:db8::8a2e:370:7334"},
		{"ip 6e40:4041:c617:e898:c11:40d2:c669:2eb4", "IP_ADDRESS:6e40:4041:c617:e898:c11:40d2:c669:2eb4"},
		{"key AKIAIOSFODNN7EXAMPLE", "SECRET:AKIAIOSFODNN7EXAMPLE"},
		{"gh ghp_" + strings.Repeat("a1B2", 9), "SECRET:ghp_" + strings.Repeat("a1B2", 9)},
		{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "SECRET:github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"},
		{"glpat-abcdefghij0123456789", "SECRET:glpat-abcdefghij0123456789"},
		{"slack xoxb-123456789012-abcdefABCDEF", "SECRET:xoxb-123456789012-abcdefABCDEF"},
		{"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "SECRET:sk_live_4eC39HqLyjWDarjtT1zdp7dc"},
		{"OPENAI=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "SECRET:sk-proj-abcdefghijklmnopqrstuvwxyz012345"},
		{"g AIzaSyA-1234567890abcdefghijklmnopqrstu", "SECRET:AIzaSyA-1234567890abcdefghijklmnopqrstu"},
		{"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
			"SECRET:eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
		{"Authorization: Bearer abcdef0123456789ABCDEF", "SECRET:abcdef0123456789ABCDEF"},
		{"x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK==\n-----END RSA PRIVATE KEY-----\ny",
			"SECRET:-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nIBAAK==\n-----END RSA PRIVATE KEY-----"},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("Find(%q)\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

// TestHardNegatives: text that looks like a value but is not one stays
// untouched, with every detector and the US national format on.
func TestHardNegatives(t *testing.T) {
	o := Defaults()
	o.PhoneRegions = []string{"US"}
	d := mustDetector(t, o)
	for _, in := range []string{
		"version 1.2.3", "v2.10.4", "release 10.0.0.1", "go1.26.0", "1.2.3.4.5",
		"2024-01-15", "15.01.2024", "01/15/2024", "2024-01-15T12:30:45Z", "12:30:45", "12:30:45.123",
		"1700000000", "1700000000000", "took 1234567 ns",
		"order #123456789", "Order 1234-5678-9012", "invoice INV-2024-000123", "ticket 555-1234",
		"550e8400-e29b-41d4-a716-446655440000",
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"4111111111111112",                   // Luhn fails
		"664191236077", "order 686806754939", // Luhn holds, 12 digits in Maestro's range, no card word
		"1234567812345670",                                                        // Luhn holds, no issuer starts with 1234
		"GB82WEST12345698765433",                                                  // mod-97 fails
		"XX82WEST12345698765432",                                                  // no such country
		"000-12-3456", "666-12-3456", "912-12-3456", "078-00-1120", "078-05-0000", // SSA rules
		"256.1.1.1", "01.02.03.04", "10.0.0", "std::vector", "a::b", "00:1A:2B:3C:4D:5E", "dead:beef",
		"foo@bar", "user@localhost", "@mention", "a@b.c1",
		"AKIAIOSFODNN7EXAMPL", "ghp_short", "sk-short", "Bearer short",
		"-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
		"The office is at 17031 2202 Rissik St", "room 101 202", "pages 12 34 56 78",
		"03262 2437 Main St", "bind 0.0.0.0", "mask 255.255.255.0", "Order 0123 4567 8901", "Invoice 2024-000123", "ISBN 978-0-306-40615-7", "0.12.345678", "release 19.18.217.2341", "upgraded to 19.18.217.2341", "name,1,234,567", "1,234,567,890",
		// A user agent's product versions (one says "Mobile"), a JavaScript
		// date whose year and hour follow the day.
		"Mozilla/5.0 (iPhone; CPU iPhone OS 15_0 like Mac OS X) AppleWebKit/605.1.15 Version/15.0 Mobile Safari/595.76.51 Chrome/99.9.4.19",
		"Mon Jun 06 2026 19:04:31 GMT+0000 (Coordinated Universal Time)",
	} {
		if got := found(d, in); got != "" {
			t.Errorf("Find(%q) = %q, want nothing", in, got)
		}
	}
}

// National formats of the configured regions; without one, only numbers
// printed the national way (trunk '0', three groups, or two with a
// subscriber group of five digits or more) that libphonenumber finds
// valid in a common region.
func TestPhoneRegions(t *testing.T) {
	none := mustDetector(t, Defaults())
	o := Defaults()
	o.PhoneRegions = []string{"gb"}
	gb := mustDetector(t, o)
	for _, in := range []string{"020 7946 0958", "07700 900123", "01.23.45.67.89", "030 1234567"} {
		if got := found(none, "see "+in); got != "PHONE:"+in {
			t.Errorf("no regions, national print: Find(%q) = %q", in, got)
		}
	}
	for _, in := range []string{"7700 900123", "07700 9001"} {
		if got := found(none, "see "+in); got != "" {
			t.Errorf("no regions: Find(%q) = %q, want nothing", in, got)
		}
	}
	if got := found(gb, "see 07700 900123"); got != "PHONE:07700 900123" {
		t.Errorf("GB: %q", got)
	}
	if got := found(none, "see 415-555-0132"); got != "" {
		t.Errorf("no regions: US number found: %q", got)
	}
	if got := found(none, "call 415-555-0132"); got != "PHONE:415-555-0132" {
		t.Errorf("context: %q", got)
	}
}

func TestDetectorOptions(t *testing.T) {
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Detectors: map[string]bool{"emails": true}}, `unknown PII detector "emails"`},
		{Options{PhoneRegions: []string{"XX"}}, `phone region "XX"`},
		{Options{Custom: []CustomPattern{{Name: "1x", Pattern: "a"}}}, `custom PII detector name "1x"`},
		{Options{Custom: []CustomPattern{{Name: "email", Pattern: "a"}}}, `custom PII detector name "email"`},
		{Options{Custom: []CustomPattern{{Name: "emp", Pattern: "("}}}, `bad pattern`},
		{Options{Custom: []CustomPattern{{Name: "emp", Pattern: "a*"}}}, `matches empty text`},
		{Options{Custom: []CustomPattern{{Name: "emp", Pattern: "a"}, {Name: "EMP", Pattern: "b"}}}, `defined twice`},
	} {
		_, err := NewDetector(tc.o)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewDetector(%+v) = %v, want %q", tc.o, err, tc.want)
		}
	}
}

func TestCustomAndAllow(t *testing.T) {
	o := Defaults()
	o.Custom = []CustomPattern{{Name: "employee_id", Pattern: `\bEMP-\d{6}\b`}}
	o.Allow = []string{"support@example.com"}
	d := mustDetector(t, o)
	got := found(d, "EMP-123456 wrote to support@example.com and bob@example.com")
	want := "EMPLOYEE_ID:EMP-123456 | EMAIL:bob@example.com"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	off := mustDetector(t, Options{Detectors: map[string]bool{DetEmail: false, DetPhone: true}})
	if got := found(off, "bob@example.com"); got != "" {
		t.Errorf("email off: %q", got)
	}
}

func ExampleDetector_Find() {
	d, _ := NewDetector(Defaults())
	s := "Contact jane@example.com, card 4111 1111 1111 1111, build 1.2.3.4"
	for _, sp := range d.Find(s, nil) {
		fmt.Println(sp.Type, s[sp.Start:sp.End])
	}
	// Output:
	// EMAIL jane@example.com
	// CREDIT_CARD 4111 1111 1111 1111
}

// Hard negatives in the JSON a tool typically returns: nothing changes.
func TestHardNegativesJSON(t *testing.T) {
	o := Defaults()
	o.PhoneRegions = []string{"US", "GB", "DE"}
	v := NewVault(mustDetector(t, o), Limits{})
	for _, in := range []string{
		`{"version":"10.0.0.1","app_version":"1.2.3.4","build":"2024.01.15.3"}`,
		`{"id":"550e8400-e29b-41d4-a716-446655440000","sha":"da39a3ee5e6b4b0d3255bfef95601890afd80709","etag":"W/\"5e6b4b0d\""}`,
		`{"created_at":"2024-01-15T12:30:45.123Z","ts":1700000000,"ts_ms":1700000000123,"date":"15.01.2024"}`,
		`{"order":"ORD-123456","order_number":123456789,"invoice":"INV-2024-000123","amount":1234.56,"qty":12}`,
		`{"card":"4111111111111112","iban":"GB82WEST12345698765433","ssn":"000-12-3456"}`,
		`{"message":"took 1234 ms","count":5551234,"text":"page 12 of 34"}`,
		`{"duration":"12:30:45","coords":[48.8566,2.3522],"range":"1-10","port":8080}`,
	} {
		out, err := v.TokenizeJSON([]byte(in))
		if err != nil || string(out) != in {
			t.Errorf("TokenizeJSON(%s)\n = %s, %v", in, out, err)
		}
	}
}

func TestHintWords(t *testing.T) {
	v := newTestVault(t, Limits{})
	in := `{"phoneNumber":"12 34 56 78","home_phone":"98 76 54 32","notes":"12 34 56 78"}`
	out, _ := v.TokenizeJSON([]byte(in))
	// "notes" is no phone key: digit groups without a phone word are not a
	// phone number, even when the same digits were one elsewhere.
	if want := `{"phoneNumber":"[PHONE_1]","home_phone":"[PHONE_2]","notes":"12 34 56 78"}`; string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}
