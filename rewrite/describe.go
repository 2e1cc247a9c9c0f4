package rewrite

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// TokenInfo is what the vault knows of one of its tokens: for the flow
// policy (where may the value go) and for a person who must judge a call
// (what does the token stand for).
type TokenInfo struct {
	Token string // "[EMAIL_1]"
	Type  string // "EMAIL"; TypeToken for text that only looked like a token
	Value string // the value itself: never log it
	// Origin is the qualified tool whose result minted the token
	// (server.tool, skills.NAME), OriginClient for a value the client or
	// its script typed, "" when unknown.
	Origin string
	// Origins are Origin and the other tools whose results held the same
	// value, at most four.
	Origins []string
}

// String never shows the value.
func (i TokenInfo) String() string { return i.Token + " from " + i.Origin }

// Describe returns what the vault knows of tok, which must be a whole
// token ("[EMAIL_1]"); ok is false for a token this vault does not hold
// (another session's, expired, made up). It does not count as a use.
func (v *Vault) Describe(tok string) (TokenInfo, bool) {
	if v == nil {
		return TokenInfo{}, false
	}
	now := v.now()
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.byToken[tok]
	if !ok {
		return TokenInfo{}, false
	}
	en := e.Value.(*entry)
	if now.Sub(en.used) > v.limits.TTL {
		return TokenInfo{}, false
	}
	info := TokenInfo{Token: tok, Type: tokenType(tok), Value: en.value, Origins: append([]string(nil), en.origins...)}
	if len(en.origins) > 0 {
		info.Origin = en.origins[0]
	}
	return info, true
}

// FindTokens returns the token-shaped text in s ("[EMAIL_1]", "[PHONE_12]"),
// each once, in order: this vault's tokens and any other.
func FindTokens(s string) []string {
	var out []string
	seen := map[string]bool{}
	for i := strings.IndexByte(s, '['); i >= 0 && i < len(s); i = nextBracket(s, i+1) {
		end := tokenShape(s, i)
		if end < 0 {
			continue
		}
		if t := s[i:end]; !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
		i = end - 1
	}
	return out
}

// TokensIn returns the tokens of this vault that restoring args
// (DetokenizeArgs: json.RawMessage, a decoded JSON value, or a string)
// would replace by their values, each once, in order.
func (v *Vault) TokensIn(args any) []TokenInfo {
	if v == nil {
		return nil
	}
	var out []TokenInfo
	seen := map[string]bool{}
	var walk func(x any)
	add := func(s string) {
		for _, t := range FindTokens(s) {
			if seen[t] {
				continue
			}
			seen[t] = true
			if info, ok := v.Describe(t); ok {
				out = append(out, info)
			}
		}
	}
	walk = func(x any) {
		switch x := x.(type) {
		case string:
			add(x)
		case json.RawMessage:
			add(string(x)) // a token cannot hold '"' or '\', so the raw text has them as written
		case []byte:
			add(string(x))
		case map[string]any:
			for k, e := range x {
				add(k)
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]string:
			for k, e := range x {
				add(k)
				add(e)
			}
		}
	}
	walk(args)
	return out
}

// ShowJSON tokenizes a call's arguments for a person or the audit to
// read: every value found becomes its token (minted with OriginClient as
// its origin when the script typed it), and text shaped like a token
// is left as written, this vault's tokens and others alike, so that the
// reader sees the tokens the call really holds (TokenizeJSON would vault
// them again as [TOKEN_n]).
func (v *Vault) ShowJSON(raw []byte) ([]byte, error) {
	if v == nil {
		return raw, nil
	}
	return v.From(OriginClient).tokenizeJSON(raw, false)
}

// Glimpse is enough of the value for a person to judge where it goes,
// without showing all of it: an email's domain, the last four digits of a
// card, an IBAN's country and last four, the last two digits of a phone
// number. Types it does not know show their length and last two
// characters.
func (i TokenInfo) Glimpse() string {
	v := i.Value
	switch i.Type {
	case TypeToken:
		return "the text " + strconv.Quote(v) + " (no one's data)"
	case "EMAIL":
		if k := strings.LastIndexByte(v, '@'); k >= 0 {
			return "an address at " + v[k+1:]
		}
	case "CREDIT_CARD":
		return "a card ending " + lastDigits(v, 4)
	case "IBAN":
		c := strings.ReplaceAll(v, " ", "")
		if len(c) > 6 {
			return "an IBAN of " + strings.ToUpper(c[:2]) + " ending " + c[len(c)-4:]
		}
	case "US_SSN":
		return "an SSN ending " + lastDigits(v, 4)
	case "PHONE":
		return "a number ending " + lastDigits(v, 2)
	case "IP_ADDRESS":
		if k := strings.IndexAny(v, ".:"); k > 0 {
			return "an address starting " + v[:k+1] + "…"
		}
	case "SECRET":
		return "a secret starting " + strconv.Quote(firstRunes(v, 4)) + "…, " + strconv.Itoa(len(v)) + " bytes"
	case "NAME":
		return "a name with initials " + initials(v)
	case "ADDRESS":
		if f := strings.Fields(v); len(f) > 0 {
			return "an address ending …" + f[len(f)-1]
		}
	}
	return strconv.Itoa(utf8.RuneCountInString(v)) + " characters ending …" + lastRunes(v, 2)
}

// lastDigits is the last n digits of s.
func lastDigits(s string, n int) string {
	var d []byte
	for i := len(s) - 1; i >= 0 && len(d) < n; i-- {
		if isDigit(s[i]) {
			d = append([]byte{s[i]}, d...)
		}
	}
	return string(d)
}

func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

func lastRunes(s string, n int) string {
	r := []rune(s)
	return string(r[max(0, len(r)-n):])
}

// initials are the first letters of each word of a name: "J. D.".
func initials(s string) string {
	var b []string
	for _, w := range strings.Fields(s) {
		r, _ := utf8.DecodeRuneInString(w)
		b = append(b, string(r)+".")
	}
	return strings.Join(b, " ")
}
