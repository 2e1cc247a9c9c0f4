package config

import "strings"

// The vocabulary of the pii section, owned here as part of the config's
// schema so that config imports no detector code (package rewrite
// implements it; a test in cmd/toolfold checks the two agree).

// PIIDetectors are the names of the built-in detectors, as the
// pii.detectors map is keyed.
var PIIDetectors = []string{"email", "phone", "credit_card", "iban", "us_ssn", "ip_address", "secrets", "name", "address"}

// PIIBuiltinTypes are the token types of the built-in detectors and of
// text that already looked like a token; a custom detector may not take
// one as its name.
var PIIBuiltinTypes = []string{"EMAIL", "PHONE", "CREDIT_CARD", "IBAN", "US_SSN", "IP_ADDRESS", "SECRET", "NAME", "ADDRESS", "TOKEN"}

// PhoneRegionCodes are the ISO 3166-1 alpha-2 codes pii.phone_regions
// accepts.
var PhoneRegionCodes = strings.Fields(`AC AD AE AF AG AI AL AM AO AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN
BO BQ BR BS BT BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET
FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE
JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR
MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PR PS PT PW PY QA RE RO RS RU RW
SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TA TC TD TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG US
UY UZ VA VC VE VG VI VN VU WF WS XK YE YT ZA ZM ZW`)

// validCustomName reports whether name can name a custom detector: its
// upper-cased form becomes the token type, so it must be letters, digits
// and underscores, start with a letter, and not be a built-in type.
func validCustomName(name string) bool {
	if name == "" || len(name) > 32 || !isASCIILetter(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isASCIILetter(c) && !(c >= '0' && c <= '9') && c != '_' {
			return false
		}
	}
	up := strings.ToUpper(name)
	for _, t := range PIIBuiltinTypes {
		if up == t {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
