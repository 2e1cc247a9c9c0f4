package rewrite

import "testing"

// TestPhoneLibrary: libphonenumber's metadata decides what the hand
// patterns cannot: a trunk digit in its own group, a configured region
// with no hand-written format, a +CC number of a length the country does
// not use.
func TestPhoneLibrary(t *testing.T) {
	d := mustDetector(t, Defaults())
	o := Defaults()
	o.PhoneRegions = []string{"MX"} // no hand-written format
	mx := mustDetector(t, o)
	for _, tc := range []struct {
		d        *Detector
		in, want string
	}{
		{d, "Fax 8 (912) 345-66-93", "PHONE:8 (912) 345-66-93"},
		{d, "tel:+7 912 345-67-89", "PHONE:+7 912 345-67-89"},
		{d, "see 030 1234 5678", "PHONE:030 1234 5678"},
		{mx, "see 55 1234 5678", "PHONE:55 1234 5678"},
		{d, "see 55 1234 5678", ""},
		{d, "+44 20 7946", ""},          // too short for GB
		{d, "+1 415 555 01321", ""},     // too long for NANP
		{d, "ref 0123 4567 8901 2", ""}, // not valid anywhere common
	} {
		if got := found(tc.d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
	if _, err := NewDetector(Options{PhoneRegions: []string{"Atlantis"}}); err == nil {
		t.Error("unknown region accepted")
	}
}
