package rewrite

import (
	"github.com/toolfold/toolfold/internal/third_party/phonenumbers"
)

// Phone numbers are checked against libphonenumber's metadata (through
// internal/third_party/phonenumbers, a copy of
// github.com/nyaruka/phonenumbers): which lengths a country's numbers
// have, which national prefixes and ranges are assigned. The scanner
// finds the digit runs; the library says whether one can be a number.

// libRegions are the regions whose national numbers are recognised when
// no region is configured but the number is printed as one (a trunk
// prefix or area code in brackets, three groups or more) or a word such
// as "tel" introduces it.
var libRegions = []string{
	"US", "GB", "DE", "FR", "IT", "ES", "NL", "BE", "CH", "AT", "PT", "IE", "SE", "NO", "DK", "FI",
	"PL", "CZ", "HU", "RO", "GR", "TR", "RU", "UA", "IL", "AE", "SA", "IN", "PK", "CN", "JP", "KR",
	"SG", "MY", "TH", "ID", "PH", "VN", "AU", "NZ", "ZA", "NG", "EG", "KE", "BR", "MX", "AR", "CL", "CO",
}

// possibleIntl reports whether digits, written after a '+', are a
// country calling code followed by a national number of a length that
// country uses.
func possibleIntl(d []byte) bool {
	cc := int32(0)
	for k := 0; k < 3 && k < len(d); k++ {
		cc = cc*10 + int32(d[k]-'0')
		regs := phonenumbers.GetRegionCodesForCountryCode(int(cc))
		if len(regs) == 0 || regs[0] == "ZZ" {
			continue
		}
		rest := d[k+1:]
		if len(rest) == 0 || len(rest) > 17 {
			return false
		}
		var nn uint64
		for _, c := range rest {
			nn = nn*10 + uint64(c-'0')
		}
		pn := &phonenumbers.PhoneNumber{CountryCode: &cc, NationalNumber: &nn}
		if rest[0] == '0' {
			yes := true
			pn.ItalianLeadingZero = &yes
		}
		// A number dialled from abroad is complete: lengths possible
		// only locally (without an area code) do not count.
		return phonenumbers.IsPossibleNumberWithReason(pn) == phonenumbers.IS_POSSIBLE
	}
	return false
}

// validPrint reports whether digits, printed in groups that end at cuts
// (digit counts), are a valid national number of one of regions printed
// the way libphonenumber prints that region's numbers: every place the
// text breaks the number is a place the library breaks it too ("020 7946
// 0958" and "020 79460958", not "0207 946 0958"; "202-400-0123", not
// "2024-000123").
func validPrint(d []byte, cuts []int, regions []string) bool {
	s := string(d)
	for _, rg := range regions {
		pn, err := phonenumbers.Parse(s, rg)
		if err != nil || !phonenumbers.IsValidNumberForRegion(pn, rg) {
			continue
		}
		f := phonenumbers.Format(pn, phonenumbers.NATIONAL)
		var digits []byte
		var libCuts []int
		for i := 0; i < len(f); i++ {
			if isDigit(f[i]) {
				if len(digits) > 0 && i > 0 && !isDigit(f[i-1]) {
					libCuts = append(libCuts, len(digits))
				}
				digits = append(digits, f[i])
			}
		}
		// The text may carry a trunk prefix the national print leaves
		// out ("1 202 …" in the US): it is a group of its own.
		off := len(d) - len(digits)
		if off < 0 || s[off:] != string(digits) {
			continue
		}
		ok := true
		for _, c := range cuts {
			if c == off {
				continue
			}
			found := false
			for _, lc := range libCuts {
				found = found || lc+off == c
			}
			if !found {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// validNational reports whether digits are a valid national number of
// one of regions (trunk prefix included, as dialled inside the country).
func validNational(d []byte, regions []string) bool {
	s := string(d)
	for _, rg := range regions {
		pn, err := phonenumbers.Parse(s, rg)
		if err == nil && phonenumbers.IsValidNumberForRegion(pn, rg) {
			return true
		}
	}
	return false
}
