package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLocaleRegion(t *testing.T) {
	for in, want := range map[string]string{
		"en_US.UTF-8": "US", "de_DE": "DE", "de_DE@euro": "DE", "fr_FR.ISO8859-1": "FR", "en_gb.utf8": "GB",
		"C": "", "POSIX": "", "": "", "C.UTF-8": "", "en": "", "xx_ZZ": "",
	} {
		if got := LocaleRegion(in); got != want {
			t.Errorf("LocaleRegion(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPhoneFromLocale: without pii.phone_regions the locale's region is in
// force; a list the file wrote, an empty one included, wins; check's
// reason says which.
func TestPhoneFromLocale(t *testing.T) {
	for _, c := range []struct {
		name, yaml, env, locale string
		want                    []string
		from                    string
	}{
		{"locale", "", "LANG", "en_US.UTF-8", []string{"US"}, "the locale LANG=en_US.UTF-8; set pii.phone_regions"},
		{"null list is unset", "pii: {phone_regions: }\n", "LC_ALL", "de_DE", []string{"DE"}, "the locale LC_ALL=de_DE"},
		{"C locale", "", "LANG", "C", nil, "the locale LANG=C names no region"},
		{"no locale", "", "", "", nil, "no locale set"},
		{"explicit", "pii: {phone_regions: [GB]}\n", "LANG", "en_US.UTF-8", []string{"GB"}, "pii.phone_regions"},
		{"explicit empty", "pii: {phone_regions: []}\n", "LANG", "en_US.UTF-8", nil, "pii.phone_regions is empty"},
	} {
		cfg, err := Parse("proxy.yaml", []byte("upstreams: {a: {command: x}}\n"+c.yaml), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		cfg.PII.PhoneFromLocale(c.env, c.locale)
		if diff := cmp.Diff(c.want, cfg.PII.PhoneRegions); diff != "" {
			t.Errorf("%s: regions (-want +got):\n%s", c.name, diff)
		}
		if got := cfg.PII.PhoneRegionsFrom; len(got) < len(c.from) || got[:len(c.from)] != c.from {
			t.Errorf("%s: from = %q, want it to start with %q", c.name, got, c.from)
		}
	}
}
