package rewrite

import "strings"

// The token types of the built-in detectors. A token is "[" + type + "_" +
// number + "]"; custom detectors use their configured name, upper-cased.
const (
	TypeEmail      = "EMAIL"
	TypePhone      = "PHONE"
	TypeCreditCard = "CREDIT_CARD"
	TypeIBAN       = "IBAN"
	TypeUSSSN      = "US_SSN"
	TypeIPAddress  = "IP_ADDRESS"
	TypeSecret     = "SECRET"
	TypeName       = "NAME"
	TypeAddress    = "ADDRESS"
	// TypeToken marks text that already looked like a token before it was
	// tokenized (an upstream wrote "[EMAIL_1]"): it is vaulted like a value
	// so that Detokenize restores the literal text, never a value.
	TypeToken = "TOKEN"
)

// Detector names, as written in the config's pii.detectors map.
const (
	DetEmail      = "email"
	DetPhone      = "phone"
	DetCreditCard = "credit_card"
	DetIBAN       = "iban"
	DetUSSSN      = "us_ssn"
	DetIPAddress  = "ip_address"
	DetSecrets    = "secrets"
	DetName       = "name"
	DetAddress    = "address"
)

// DetectorNames lists the built-in detectors in a stable order.
func DetectorNames() []string {
	return []string{DetEmail, DetPhone, DetCreditCard, DetIBAN, DetUSSSN, DetIPAddress, DetSecrets, DetName, DetAddress}
}

// kind indexes the built-in detectors.
type kind uint8

const (
	kEmail kind = iota
	kPhone
	kCard
	kIBAN
	kSSN
	kIP
	kSecret
	kName
	kAddr
	numKinds
)

var kindType = [numKinds]string{TypeEmail, TypePhone, TypeCreditCard, TypeIBAN, TypeUSSSN, TypeIPAddress, TypeSecret, TypeName, TypeAddress}

func kindOf(name string) (kind, bool) {
	for i, n := range DetectorNames() {
		if n == name {
			return kind(i), true
		}
	}
	return 0, false
}

// ValidCustomName reports whether name can name a custom detector: its
// upper-cased form becomes the token type, so it must be letters, digits
// and underscores, start with a letter, and not clash with a built-in type.
func ValidCustomName(name string) bool {
	if name == "" || len(name) > 32 || !isLetter(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isLetter(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	up := strings.ToUpper(name)
	for _, t := range append(kindType[:], TypeToken) {
		if up == t {
			return false
		}
	}
	return true
}
