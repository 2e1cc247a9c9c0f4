package rewrite

import "strings"

// secretAt recognises a credential starting at the word start s[i] and
// returns the span to hide (for "Bearer x" only x), or (-1, -1).
func secretAt(s string, i int) (int, int) {
	rest := s[i:]
	switch s[i] {
	case 'A':
		// AWS access key IDs: AKIA/ASIA/ABIA/ACCA + 16 upper-case
		// letters or digits. Google API keys: AIza + 35.
		if len(rest) >= 20 && (strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "ASIA") ||
			strings.HasPrefix(rest, "ABIA") || strings.HasPrefix(rest, "ACCA")) {
			j := run(s, i+4, func(c byte) bool { return isUpper(c) || isDigit(c) })
			if j-i == 20 && !tokenByte(s, j) {
				return i, j
			}
		}
		if strings.HasPrefix(rest, "AIza") {
			return fixed(s, i, 4, 35)
		}
	case 'G':
		// Google OAuth client secrets: GOCSPX- + 28.
		if len(rest) >= 35 && strings.HasPrefix(rest, "GOCSPX-") {
			return fixed(s, i, 7, 28)
		}
	case 'y':
		// Google OAuth access tokens: ya29. + 20 or more.
		if len(rest) >= 25 && rest[1] == 'a' && strings.HasPrefix(rest, "ya29.") {
			return atLeast(s, i, 5, 20)
		}
	case 'k':
		// Mailgun private API keys: key- + 32 hex digits.
		if len(rest) >= 36 && rest[3] == '-' && strings.HasPrefix(rest, "key-") {
			if j := hexRun(s, i+4, 32); j > 0 && !tokenByte(s, j) && !placeholder(s[i+4:j]) {
				return i, j
			}
		}
	case 'd':
		// Doppler tokens: dp.pt. dp.st. dp.ct. dp.sa. dp.scim. dp.audit. + 40 or more.
		if len(rest) >= 46 && rest[1] == 'p' && rest[2] == '.' {
			for _, kind := range []string{"pt.", "st.", "ct.", "sa.", "scim.", "audit."} {
				if strings.HasPrefix(rest[3:], kind) {
					return atLeast(s, i, 3+len(kind), 40)
				}
			}
		}
	case 'g':
		// GitHub: ghp_ gho_ ghu_ ghs_ ghr_ + 36 or more; github_pat_.
		// GitLab: glpat- + 20 or more.
		if len(rest) > 4 && rest[0:2] == "gh" && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_' {
			return atLeast(s, i, 4, 36)
		}
		if strings.HasPrefix(rest, "github_pat_") {
			return atLeast(s, i, 11, 22)
		}
		if strings.HasPrefix(rest, "glpat-") {
			return atLeast(s, i, 6, 20)
		}
		// Groq: gsk_ + 52.
		if len(rest) >= 56 && rest[1] == 's' && strings.HasPrefix(rest, "gsk_") {
			return fixed(s, i, 4, 52)
		}
	case 'w':
		// Stripe webhook signing secrets: whsec_ + 24 or more.
		if len(rest) >= 30 && rest[5] == '_' && strings.HasPrefix(rest, "whsec_") {
			return atLeast(s, i, 6, 24)
		}
	case 'x':
		// xAI: xai- + 60 or more.
		if len(rest) >= 64 && rest[3] == '-' && strings.HasPrefix(rest, "xai-") {
			return atLeast(s, i, 4, 60)
		}
		// Slack: xoxb- xoxp- xoxa- xoxr- xoxs- xoxe-, xapp-.
		if len(rest) > 5 && rest[:3] == "xox" && strings.IndexByte("bpares", rest[3]) >= 0 && rest[4] == '-' {
			return atLeast(s, i, 5, 10)
		}
		if strings.HasPrefix(rest, "xapp-") {
			return atLeast(s, i, 5, 10)
		}
	case 's', 'r':
		// Replicate: r8_ + 37.
		if s[i] == 'r' && len(rest) >= 40 && rest[1] == '8' && rest[2] == '_' {
			return fixed(s, i, 3, 37)
		}
		// Stripe: sk_live_ sk_test_ rk_live_ rk_test_ + 16 or more.
		if len(rest) > 8 && rest[1:3] == "k_" && (strings.HasPrefix(rest[3:], "live_") || strings.HasPrefix(rest[3:], "test_")) {
			return atLeast(s, i, 8, 16)
		}
		// OpenAI: sk- (sk-proj-, sk-svcacct-, sk-admin-) + 20 or more.
		if s[i] == 's' && strings.HasPrefix(rest, "sk-") {
			return atLeast(s, i, 3, 20)
		}
		// Supabase: sbp_ + 40 hex digits. Notion integration tokens:
		// secret_ + 43 letters and digits.
		if len(rest) >= 44 && rest[3] == '_' && strings.HasPrefix(rest, "sbp_") {
			if j := hexRun(s, i+4, 40); j > 0 && !tokenByte(s, j) && !placeholder(s[i+4:j]) {
				return i, j
			}
		}
		if len(rest) >= 50 && rest[6] == '_' && strings.HasPrefix(rest, "secret_") {
			if j := run(s, i+7, isAlnum); j-i-7 == 43 && !tokenByte(s, j) && mixed(s[i+7:j]) {
				return i, j
			}
		}
		// Sentry organization tokens: sntrys_ + a base64 payload.
		if strings.HasPrefix(rest, "sntrys_") {
			if j := run(s, i+7, func(c byte) bool { return class[c]&cB64 != 0 || c == '+' || c == '/' || c == '=' }); j-i-7 >= 40 && !tokenByte(s, j) {
				return i, j
			}
		}
	case 'N':
		// New Relic user keys: NRAK- + 27.
		if strings.HasPrefix(rest, "NRAK-") {
			return fixed(s, i, 5, 27)
		}
	case 'e':
		if strings.HasPrefix(rest, "eyJ") {
			if end := jwtEnd(s, i); end > 0 {
				return i, end
			}
		}
	case 'B', 'b':
		if len(rest) > 7 && strings.EqualFold(rest[:7], "bearer ") {
			j := i + 7
			end := run(s, j, bearerByte)
			if end-j >= 16 && !tokenByte(s, end) {
				return j, end
			}
		}
	}
	return -1, -1
}

// telegramEnd: a Telegram bot token at s[i], "123456789:AA" + 33
// base64url characters, or -1.
func telegramEnd(s string, i int) int {
	j := i
	for j < len(s) && j-i <= 10 && isDigit(s[j]) {
		j++
	}
	if j-i < 8 || j-i > 10 || j+3 > len(s) || s[j] != ':' || s[j+1] != 'A' || s[j+2] != 'A' {
		return -1
	}
	k := run(s, j+3, func(c byte) bool { return class[c]&cB64 != 0 })
	if k-j-3 != 33 || tokenByte(s, k) {
		return -1
	}
	return k
}

// mixed: upper-case letters, lower-case letters and digits all occur, as
// in a random key and not in a word or a name.
func mixed(s string) bool {
	var u, l, d bool
	for i := 0; i < len(s); i++ {
		u, l, d = u || isUpper(s[i]), l || s[i] >= 'a' && s[i] <= 'z', d || isDigit(s[i])
	}
	return u && l && d
}

// tokenByte: the characters of API keys.
func tokenByte(s string, j int) bool {
	return j < len(s) && (isAlnum(s[j]) || s[j] == '_' || s[j] == '-')
}

func bearerByte(c byte) bool {
	return isAlnum(c) || strings.IndexByte("-._~+/=", c) >= 0
}

func run(s string, j int, ok func(byte) bool) int {
	for j < len(s) && ok(s[j]) {
		j++
	}
	return j
}

// atLeast: a prefix of length p, then at least min key characters.
func atLeast(s string, i, p, min int) (int, int) {
	j := run(s, i+p, func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' })
	if j-i-p < min || placeholder(s[i+p:j]) {
		return -1, -1
	}
	return i, j
}

// fixed: a prefix of length p, then exactly n key characters.
func fixed(s string, i, p, n int) (int, int) {
	j := run(s, i+p, func(c byte) bool { return isAlnum(c) || c == '_' || c == '-' })
	if j-i-p != n || placeholder(s[i+p:j]) {
		return -1, -1
	}
	return i, j
}

// placeholder: a key's body written by hand in documentation
// ("sk_live_xxxxxxxxxxxxxxxx", "ghp_XXXX…", "AKIA0000…"): three distinct
// characters or fewer, where a random body of sixteen has ten or more.
func placeholder(body string) bool {
	var seen [256]bool
	n := 0
	for i := 0; i < len(body); i++ {
		if !seen[body[i]] {
			seen[body[i]] = true
			if n++; n > 3 {
				return false
			}
		}
	}
	return true
}

// hexRun: exactly n lower-case hex digits at s[i], the end or -1.
func hexRun(s string, i, n int) int {
	j := run(s, i, func(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' })
	if j-i != n {
		return -1
	}
	return j
}

// mailchimpEnd: a Mailchimp API key at s[i], 32 hex digits, "-us" and a
// data centre number, or -1.
func mailchimpEnd(s string, i int) int {
	if i+35 > len(s) || s[i+32] != '-' || s[i+33] != 'u' || s[i+34] != 's' {
		return -1 // the common case, at once
	}
	j := hexRun(s, i, 32)
	if j < 0 || !strings.HasPrefix(s[j:], "-us") {
		return -1
	}
	k := run(s, j+3, isDigit)
	if k-j-3 < 1 || k-j-3 > 2 || tokenByte(s, k) || placeholder(s[i:j]) {
		return -1
	}
	return k
}

// jwtEnd: three base64url segments, the first two JSON objects ("eyJ").
func jwtEnd(s string, i int) int {
	j := i
	for seg := 0; seg < 3; seg++ {
		k := run(s, j, func(c byte) bool { return class[c]&cB64 != 0 })
		if k-j < 8 {
			return -1
		}
		if seg == 1 && !strings.HasPrefix(s[j:], "eyJ") {
			return -1
		}
		j = k
		if seg < 2 {
			if j >= len(s) || s[j] != '.' {
				return -1
			}
			j++
		}
	}
	if j < len(s) && (wordAt(s, j) || s[j] == '.') {
		return -1
	}
	return j
}

// maxPEM bounds how far a private-key block is searched for its end.
const maxPEM = 64 << 10

// pemEnd recognises "-----BEGIN … PRIVATE KEY-----" at s[i] and returns the
// end of its END line (or of its body, if the END line is missing).
func pemEnd(s string, i int) int {
	const begin = "-----BEGIN "
	if !strings.HasPrefix(s[i:], begin) {
		return -1
	}
	line := s[i+len(begin):]
	if k := strings.Index(line, "-----"); k < 0 || k > 40 || !strings.HasSuffix(line[:k], "PRIVATE KEY") {
		return -1
	}
	body := s[i:min(len(s), i+maxPEM)]
	if k := strings.Index(body[len(begin):], "-----END "); k >= 0 {
		j := i + len(begin) + k + len("-----END ")
		if e := strings.Index(s[j:min(len(s), j+40)], "-----"); e >= 0 {
			return j + e + 5
		}
		return j
	}
	// No END line: hide the base64 body that follows the BEGIN line.
	j := i + len(begin) + strings.Index(line, "-----") + 5
	return run(s, j, func(c byte) bool {
		return isAlnum(c) || c == '+' || c == '/' || c == '=' || c == '\n' || c == '\r' || c == ' ' || c == '\\'
	})
}
