package config

import (
	"slices"
	"strings"
)

// LocaleVars are the environment variables a host's locale is read from,
// the first one set winning, as POSIX orders them for messages.
var LocaleVars = []string{"LC_ALL", "LC_MESSAGES", "LANG"}

// LocaleRegion is the territory of a POSIX locale name, upper-cased, when
// toolfold knows its national phone format: "en_US.UTF-8" → "US",
// "de_DE@euro" → "DE". "C", "POSIX", a name without a territory ("en",
// "C.UTF-8") or an unknown one give "".
func LocaleRegion(locale string) string {
	l := locale
	if i := strings.IndexAny(l, ".@"); i >= 0 {
		l = l[:i]
	}
	_, terr, ok := strings.Cut(l, "_")
	if !ok {
		return ""
	}
	terr = strings.ToUpper(terr)
	if !slices.Contains(PhoneRegionCodes, terr) {
		return ""
	}
	return terr
}

// PhoneFromLocale decides the national phone format in force when the
// file did not write pii.phone_regions: the region of the host's locale,
// read by the caller (cmd/toolfold; packages read no environment) from
// the variable name, whose value is locale ("" when none of LocaleVars is
// set). It records the reason in PhoneRegionsFrom either way.
func (p *PII) PhoneFromLocale(name, locale string) {
	if p.PhoneRegionsSet {
		if len(p.PhoneRegions) == 0 {
			p.PhoneRegionsFrom = "pii.phone_regions is empty"
		} else {
			p.PhoneRegionsFrom = "pii.phone_regions"
		}
		return
	}
	switch r := LocaleRegion(locale); {
	case name == "":
		p.PhoneRegionsFrom = "no locale set (LC_ALL, LC_MESSAGES, LANG) and no pii.phone_regions"
	case r == "":
		p.PhoneRegionsFrom = "the locale " + name + "=" + locale + " names no region with a known phone format, and no pii.phone_regions"
	default:
		p.PhoneRegions = []string{r}
		p.PhoneRegionsFrom = "the locale " + name + "=" + locale + "; set pii.phone_regions to choose, [] for international formats only"
	}
}
