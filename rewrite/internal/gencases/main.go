// Command gencases writes the generated PII evaluation sets of
// rewrite/testdata and splits the Presidio set into develop and holdout.
// It is run once (go run ./rewrite/internal/gencases); the sets it wrote
// are committed, and the holdout halves are read only as aggregate figures.
//
// Every random choice comes from fixed seeds, so a rerun writes the same
// files. Phone numbers are libphonenumber's example numbers by region and
// type (github.com/nyaruka/phonenumbers, MIT), with their last digits
// varied and kept only when the library still calls them valid.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolfold/toolfold/internal/third_party/phonenumbers"
	"github.com/toolfold/toolfold/rewrite/internal/casegen"
)

func main() {
	dir := flag.String("dir", "rewrite/testdata", "where the sets are")
	flag.Parse()
	g := &gen{casegen.New(rand.New(rand.NewPCG(15, 2026)), "gen")}
	cases := g.all()
	// Per group, so that both halves hold every type and every kind of
	// negative.
	dev, hold := casegen.Split(cases, rand.New(rand.NewPCG(7, 7)))
	write(filepath.Join(*dir, "generated_develop.cases.jsonl"), dev)
	write(filepath.Join(*dir, "generated_holdout.cases.jsonl"), hold)
	splitPresidio(*dir)
}

func splitPresidio(dir string) {
	cases, err := casegen.Read(filepath.Join(dir, "presidio_synth_v2.cases.jsonl"))
	if err != nil {
		log.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1500, 15))
	r.Shuffle(len(cases), func(i, j int) { cases[i], cases[j] = cases[j], cases[i] })
	h := len(cases) * 7 / 10
	dev, hold := cases[:h], cases[h:]
	casegen.SortByID(dev)
	casegen.SortByID(hold)
	write(filepath.Join(dir, "presidio_develop.cases.jsonl"), dev)
	write(filepath.Join(dir, "presidio_holdout.cases.jsonl"), hold)
}

func write(path string, cases []casegen.Case) {
	if err := casegen.Write(path, cases); err != nil {
		log.Fatal(err)
	}
}

// gen makes the cases.
type gen struct{ *casegen.Set }

// Neutral templates: no word that names the type.
var neutral = []string{
	"%s",
	"See %s for details.",
	"The value was %s, as recorded.",
	`{"value": "%s", "ok": true}`,
	"value=%s&page=2",
	"key:%s",
	"(%s)",
	"'%s'",
	"<td>%s</td>",
	"- %s\n- next item",
	"[%s]",
	"row 12\t%s\tactive",
}

func (g *gen) all() []casegen.Case {
	g.emails()
	g.encoded()
	g.phones()
	g.cards()
	g.ibans()
	g.ssns()
	g.ips()
	g.secrets()
	g.negatives()
	return g.Cases
}

func (g *gen) emails() {
	first := []string{"anna", "jean.luc", "o.brien", "li_wei", "m", "sam+news", "j.doe-smith", "Zoë", "user2024", "x.y.z", "ALICE", "kim.nguyen"}
	domains := []string{"example.com", "mail.example.org", "uni.ac.uk", "firma.de", "test.co.jp", "example.io", "sub.domain.example.net", "correo.es", "exemple.fr", "xn--bcher-kva.example"}
	idn := []string{"müller@bücher.de", "用户@例子.广告", "josé@correo.es", "δοκιμή@παράδειγμα.δοκιμή", "иван@пример.рф", "pelé@exemplo.com.br"}
	tmpls := append([]string{"Email: %s", "write to %s please", "mailto:%s", "From: Jane <%s>", "Contact %s."}, neutral...)
	for i := 0; i < 90; i++ {
		v := g.Pick(first) + "@" + g.Pick(domains)
		if strings.Contains(v, "Zoë") && g.R.IntN(2) == 0 {
			v = "zoe" + g.Digits(2) + "@" + g.Pick(domains)
		}
		g.Add("email", "EMAIL", v, g.Pick(tmpls))
	}
	for _, v := range idn {
		g.Add("email", "EMAIL", v, g.Pick(tmpls))
		g.Add("email", "EMAIL", v, g.Pick(tmpls))
	}
}

// encoded: values written with fullwidth or zero-width characters or
// percent-encoding; the label is the original text, bytes as written.
func (g *gen) encoded() {
	for i := 0; i < 8; i++ {
		u, d := g.Pick([]string{"anna", "li.wei", "kim", "ops"}), g.Pick([]string{"example.com", "firma.de", "mail.example.org"})
		g.Add("encoded", "EMAIL", u+"＠"+d, g.Pick([]string{"%s", "mail %s", "key:%s"}))
		g.Add("encoded", "EMAIL", u+"%40"+d, g.Pick([]string{"?email=%s&x=1", "https://ex.com/u?to=%s", "mailto=%s"}))
		g.Add("encoded", "EMAIL", u+"\u200b@"+d, g.Pick([]string{"%s", "contact %s"}))
		g.Add("encoded", "EMAIL", strings.ToUpper(u)+"@"+d, "(%s)")
	}
	for i := 0; i < 4; i++ {
		v := g.card("4", 16)
		g.Add("encoded", "CREDIT_CARD", toFullwidth(v), "card %s")
		a, b, c := g.ssnParts()
		g.Add("encoded", "US_SSN", toFullwidth(a+"-"+b+"-"+c), "SSN %s")
	}
}

func toFullwidth(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r == '-' {
			return r - '!' + 0xFF01
		}
		return r
	}, s)
}

var phoneRegions = []string{"US", "CA", "GB", "DE", "FR", "NL", "BE", "CH", "AT", "IT", "ES", "PT", "IE", "SE", "NO", "DK", "FI", "PL", "CZ", "AU", "NZ", "JP", "IN", "BR", "MX", "ZA", "SG", "KR", "CN", "AR", "IL", "TR", "HU", "RU"}

// variant changes the last digits of an example number and keeps the
// result if libphonenumber still calls it valid.
func (g *gen) variant(n *phonenumbers.PhoneNumber) *phonenumbers.PhoneNumber {
	for try := 0; try < 20; try++ {
		nn := *n.NationalNumber
		mod := uint64(1000)
		v := nn - nn%mod + uint64(g.R.IntN(int(mod)))
		c := phonenumbers.PhoneNumber{}
		c.CountryCode = n.CountryCode
		c.NationalNumber = &v
		c.ItalianLeadingZero = n.ItalianLeadingZero
		if phonenumbers.IsValidNumber(&c) {
			return &c
		}
	}
	return n
}

func (g *gen) phones() {
	ctx := []string{"Tel: %s", "call me at %s", "phone %s", "Mobile: %s", "tel:%s", `{"phone": "%s"}`, "Fax %s", "Reach the office on %s.", "cell: %s", "phone=%s"}
	for _, rg := range phoneRegions {
		for _, typ := range []phonenumbers.PhoneNumberType{phonenumbers.FIXED_LINE, phonenumbers.MOBILE} {
			ex := phonenumbers.GetExampleNumberForType(rg, typ)
			if ex == nil {
				continue
			}
			for k := 0; k < 2; k++ {
				n := g.variant(ex)
				intl := phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
				// International forms need no context word.
				switch g.R.IntN(4) {
				case 0:
					g.Add("phone", "PHONE", intl, g.Pick(append(neutral, ctx...)))
				case 1:
					g.Add("phone", "PHONE", phonenumbers.Format(n, phonenumbers.E164), g.Pick(append(neutral, ctx...)))
				case 2:
					g.Add("phone", "PHONE", strings.ReplaceAll(intl, " ", "-"), g.Pick(ctx))
				case 3:
					g.Add("phone", "PHONE", strings.ReplaceAll(intl, " ", "."), g.Pick(ctx))
				}
				// National forms come with a context word.
				nat := phonenumbers.Format(n, phonenumbers.NATIONAL)
				if g.R.IntN(3) == 0 {
					nat = compact(nat)
				}
				g.Add("phone", "PHONE", nat, g.Pick(ctx))
			}
		}
	}
}

func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

func luhnDigit(body string) byte {
	sum := 0
	dbl := true
	for i := len(body) - 1; i >= 0; i-- {
		v := int(body[i] - '0')
		if dbl {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		dbl = !dbl
	}
	return byte('0' + (10-sum%10)%10)
}

func (g *gen) card(prefix string, n int) string {
	body := prefix + g.Digits(n-1-len(prefix))
	return body + string(luhnDigit(body))
}

func group4(s, sep string) string {
	var parts []string
	for len(s) > 4 {
		parts = append(parts, s[:4])
		s = s[4:]
	}
	return strings.Join(append(parts, s), sep)
}

// Issuers' published test numbers (Stripe, Adyen, Braintree, PayPal docs).
var testCards = []string{
	"4111111111111111", "4242424242424242", "4012888888881881", "4000056655665556", "4222222222222",
	"5555555555554444", "5105105105105100", "2223003122003222", "5200828282828210", "2222400070000005",
	"378282246310005", "371449635398431", "378734493671000",
	"6011111111111117", "6011000990139424", "6445644564456445",
	"3530111333300000", "3566002020360505", "30569309025904", "38520000023237", "36227206271667",
	"6200000000000005", "6759649826438453", "5018000000000009", "6703444444444449", "2200000000000004",
}

func (g *gen) cards() {
	ctx := []string{"card %s", "Card number: %s", "paid with %s", "cc=%s", `{"card": "%s"}`}
	tmpls := append(ctx, neutral...)
	brands := []struct {
		prefix string
		n      int
	}{{"4", 16}, {"4", 13}, {"4", 19}, {"51", 16}, {"55", 16}, {"2221", 16}, {"2720", 16}, {"34", 15}, {"37", 15},
		{"6011", 16}, {"65", 16}, {"644", 16}, {"3528", 16}, {"3589", 16}, {"300", 14}, {"36", 14}, {"62", 16}, {"62", 19}, {"6759", 16}, {"2200", 16}}
	for _, b := range brands {
		for k := 0; k < 3; k++ {
			v := g.card(b.prefix, b.n)
			switch {
			case k == 1 && b.n == 15:
				v = v[:4] + " " + v[4:10] + " " + v[10:]
			case k == 1 && b.n == 16:
				v = group4(v, " ")
			case k == 2 && b.n == 16:
				v = group4(v, "-")
			}
			g.Add("card", "CREDIT_CARD", v, g.Pick(tmpls))
		}
	}
	for _, v := range testCards {
		g.Add("card", "CREDIT_CARD", v, g.Pick(tmpls))
		if len(v) == 16 {
			g.Add("card", "CREDIT_CARD", group4(v, " "), g.Pick(tmpls))
		}
	}
}

var ibanFormats = map[string]string{ // country: BBAN as (n digits | a letters | c alnum) runs
	"DE": "18n", "GB": "4a14n", "FR": "10n11c2n", "ES": "20n", "IT": "1a10n12c", "NL": "4a10n", "BE": "12n",
	"CH": "5n12c", "AT": "16n", "PL": "24n", "SE": "20n", "NO": "11n", "DK": "14n", "FI": "14n", "IE": "4a14n",
	"PT": "21n", "LU": "3n13c", "CZ": "20n", "HU": "24n", "RO": "4a16c", "GR": "7n16c", "TR": "5n1n16c", "SA": "2n18c", "AE": "3n16n", "BR": "23n1a1c",
}

func (g *gen) bban(f string) string {
	var b strings.Builder
	for len(f) > 0 {
		k := 0
		for f[k] >= '0' && f[k] <= '9' {
			k++
		}
		var n int
		fmt.Sscan(f[:k], &n)
		for i := 0; i < n; i++ {
			switch f[k] {
			case 'n':
				b.WriteByte(byte('0' + g.R.IntN(10)))
			case 'a':
				b.WriteByte(byte('A' + g.R.IntN(26)))
			case 'c':
				if g.R.IntN(2) == 0 {
					b.WriteByte(byte('0' + g.R.IntN(10)))
				} else {
					b.WriteByte(byte('A' + g.R.IntN(26)))
				}
			}
		}
		f = f[k+1:]
	}
	return b.String()
}

func mod97(s string) int {
	r := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			r = (r*10 + int(c-'0')) % 97
		} else {
			r = (r*100 + int(c-'A') + 10) % 97
		}
	}
	return r
}

func iban(cc, bban string) string {
	check := 98 - mod97(bban+cc+"00")
	return fmt.Sprintf("%s%02d%s", cc, check, bban)
}

func (g *gen) ibans() {
	ctx := []string{"IBAN %s", "IBAN: %s", "pay to %s", "account %s", `{"iban": "%s"}`}
	tmpls := append(ctx, neutral...)
	var ccs []string
	for cc := range ibanFormats {
		ccs = append(ccs, cc)
	}
	sort.Strings(ccs)
	for _, cc := range ccs {
		for k := 0; k < 3; k++ {
			v := iban(cc, g.bban(ibanFormats[cc]))
			if k == 1 {
				v = group4(v, " ")
			}
			g.Add("iban", "IBAN", v, g.Pick(tmpls))
		}
	}
}

func (g *gen) ssnParts() (string, string, string) {
	for {
		a := 1 + g.R.IntN(899)
		if a == 666 {
			continue
		}
		return fmt.Sprintf("%03d", a), fmt.Sprintf("%02d", 1+g.R.IntN(99)), fmt.Sprintf("%04d", 1+g.R.IntN(9999))
	}
}

func (g *gen) ssns() {
	ctx := []string{"SSN %s", "ssn:%s", "Social Security Number: %s", "SSN#%s", `{"ssn": "%s"}`, "social security no. %s"}
	for i := 0; i < 60; i++ {
		a, b, c := g.ssnParts()
		switch i % 3 {
		case 0:
			g.Add("ssn", "US_SSN", a+"-"+b+"-"+c, g.Pick(append(ctx, neutral...)))
		case 1:
			g.Add("ssn", "US_SSN", a+b+c, g.Pick(ctx))
		case 2:
			g.Add("ssn", "US_SSN", a+" "+b+" "+c, g.Pick(ctx))
		}
	}
}

func (g *gen) ips() {
	ctx := []string{"IP %s", "from %s:443", "host=%s", "client ip: %s", `{"ip": "%s"}`, "ping %s"}
	tmpls := append(ctx, neutral...)
	for i := 0; i < 50; i++ {
		v := fmt.Sprintf("%d.%d.%d.%d", 1+g.R.IntN(223), g.R.IntN(256), g.R.IntN(256), 1+g.R.IntN(254))
		g.Add("ip", "IP_ADDRESS", v, g.Pick(tmpls))
	}
	for _, v := range []string{"8.8.4.4", "192.168.0.1", "10.0.0.12", "172.16.254.1", "127.0.0.1"} {
		g.Add("ip", "IP_ADDRESS", v, g.Pick(tmpls))
	}
	h := func() string { return fmt.Sprintf("%x", g.R.IntN(1<<16)) }
	for i := 0; i < 40; i++ {
		var v string
		switch i % 4 {
		case 0:
			v = strings.Join([]string{h(), h(), h(), h(), h(), h(), h(), h()}, ":")
		case 1:
			v = "2001:db8:" + h() + "::" + h() + ":" + h()
		case 2:
			v = "fe80::" + h() + ":" + h() + ":" + h() + ":" + h()
		case 3:
			v = strings.ToUpper("2a00:1450:" + h() + ":" + h() + "::" + h())
		}
		g.Add("ip", "IP_ADDRESS", v, g.Pick(tmpls))
	}
	for _, v := range []string{"2001:db8::1", "::ffff:192.0.2.128", "2606:4700:4700::1111", "fe80::1"} {
		g.Add("ip", "IP_ADDRESS", v, g.Pick(tmpls))
	}
}

const (
	alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	hexl  = "0123456789abcdef"
	b64u  = alnum + "-_"
)

func (g *gen) from(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.R.IntN(len(set))]
	}
	return string(b)
}

func (g *gen) secrets() {
	ctx := []string{"token: %s", "export API_KEY=%s", `{"secret": "%s"}`, "Authorization: Bearer %s", "key=%s"}
	tmpls := append(ctx, neutral...)
	makers := []func() string{
		func() string { return "AKIA" + g.from(upnum, 16) },
		func() string { return "ASIA" + g.from(upnum, 16) },
		func() string { return "ghp_" + g.from(alnum, 36) },
		func() string { return "gho_" + g.from(alnum, 36) },
		func() string { return "ghs_" + g.from(alnum, 36) },
		func() string { return "github_pat_" + g.from(alnum, 22) + "_" + g.from(alnum, 59) },
		func() string { return "glpat-" + g.from(b64u, 20) },
		func() string { return "xoxb-" + g.Digits(12) + "-" + g.Digits(13) + "-" + g.from(alnum, 24) },
		func() string {
			return "xoxp-" + g.Digits(12) + "-" + g.Digits(12) + "-" + g.Digits(13) + "-" + g.from(hexl, 32)
		},
		func() string { return "xapp-1-A" + g.from(upnum, 10) + "-" + g.Digits(13) + "-" + g.from(hexl, 64) },
		func() string { return "sk_live_" + g.from(alnum, 24) },
		func() string { return "rk_live_" + g.from(alnum, 24) },
		func() string { return "sk_test_" + g.from(alnum, 24) },
		func() string { return "sk-proj-" + g.from(b64u, 48) },
		func() string { return "sk-" + g.from(alnum, 20) + "T3BlbkFJ" + g.from(alnum, 20) },
		func() string { return "sk-ant-api03-" + g.from(b64u, 93) + "AA" },
		func() string { return "AIza" + g.from(b64u, 35) },
		func() string { return "SG." + g.from(b64u, 22) + "." + g.from(b64u, 43) },
		func() string { return "npm_" + g.from(alnum, 36) },
		func() string { return "pypi-AgEIcHlwaS5vcmc" + g.from(b64u, 60) },
		func() string { return "hf_" + g.from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 34) },
		func() string { return "dop_v1_" + g.from(hexl, 64) },
		func() string { return "shpat_" + g.from("abcdefABCDEF0123456789", 32) },
		func() string { return "SK" + g.from(hexl, 32) },
		func() string { return "dapi" + g.from(hexl, 32) },
		func() string { return "glsa_" + g.from(alnum, 32) + "_" + g.from(hexl, 8) },
		func() string { return "NRAK-" + g.from(upnum, 27) },
		func() string { return "PMAK-" + g.from(hexl, 24) + "-" + g.from(hexl, 34) },
		func() string { return "lin_api_" + g.from(alnum, 40) },
		func() string { return "hvs." + g.from(b64u, 90) },
		func() string { return "sq0atp-" + g.from(b64u, 22) },
		func() string { return "pul-" + g.from(hexl, 40) },
		func() string { return "AGE-SECRET-KEY-1" + g.from("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58) },
		func() string {
			return "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiI" + g.from(b64u, 30) + "." + g.from(b64u, 43)
		},
		func() string { return g.Digits(10) + ":AA" + g.from(b64u, 33) },
		func() string { return "ntn_" + g.Digits(11) + g.from(alnum, 35) },
		func() string { return "sntrys_eyJpYXQiOjE2" + g.from(alnum, 60) },
		func() string { return "fo1_" + g.from(b64u, 43) },
		func() string { return "dp.pt." + g.from(alnum, 43) },
		func() string { return "ATATT3xFfGF0" + g.from(b64u, 170) + "=" + g.from(upnum, 8) },
	}
	for _, mk := range makers {
		for k := 0; k < 3; k++ {
			g.Add("secret", "SECRET", mk(), g.Pick(tmpls))
		}
	}
	pem := "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + g.from(alnum+"+/", 60) + "\n" + g.from(alnum+"+/", 64) + "\n-----END RSA PRIVATE KEY-----"
	g.Add("secret", "SECRET", pem, "key file:\n%s\n")
	pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk" + g.from(alnum+"+/", 60) + "\n-----END OPENSSH PRIVATE KEY-----"
	g.Add("secret", "SECRET", pem, "%s")
}

func (g *gen) negatives() {
	neg := func(group, v string, tmpls ...string) {
		if len(tmpls) == 0 {
			tmpls = neutral
		}
		g.Add(group, "", v, g.Pick(tmpls))
	}
	for i := 0; i < 15; i++ { // Luhn-invalid card-shaped numbers
		v := g.card("4", 16)
		last := (int(v[15]-'0') + 1 + g.R.IntN(8)) % 10
		v = v[:15] + string(byte('0'+last))
		if i%2 == 0 {
			v = group4(v, " ")
		}
		neg("neg-luhn", v, "card %s", "order %s", "%s", "ref: %s")
	}
	for _, v := range []string{"000-12-3456", "666-12-3456", "912-34-5678", "123-00-4567", "123-45-0000", "987-65-4321"} {
		neg("neg-ssn", v, "SSN %s", "%s", "id %s")
	}
	for i := 0; i < 10; i++ {
		v := fmt.Sprintf("%d.%d.%d.%d", g.R.IntN(20), g.R.IntN(40), g.R.IntN(300), g.R.IntN(9000))
		neg("neg-version", v, "version %s", "v%s", "release %s", "upgraded to %s", `{"version": "%s"}`)
	}
	for _, v := range []string{"1.2.3", "10.0.19041.1", "2.14.0-rc.1", "3.11.7", "256.1.1.1", "1.2.3.4.5"} {
		neg("neg-version", v, "version %s", "%s", "build %s")
	}
	for i := 0; i < 10; i++ {
		y, m, d := 2000+g.R.IntN(30), 1+g.R.IntN(12), 1+g.R.IntN(28)
		vs := []string{
			fmt.Sprintf("%d-%02d-%02d", y, m, d), fmt.Sprintf("%02d.%02d.%d", d, m, y), fmt.Sprintf("%02d/%02d/%d", m, d, y),
			fmt.Sprintf("%d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, g.R.IntN(24), g.R.IntN(60), g.R.IntN(60)),
			fmt.Sprintf("%02d:%02d:%02d", g.R.IntN(24), g.R.IntN(60), g.R.IntN(60)),
			fmt.Sprintf("%d%02d%02d%02d%02d%02d", y, m, d, g.R.IntN(24), g.R.IntN(60), g.R.IntN(60)),
		}
		neg("neg-date", g.Pick(vs), "on %s", "%s", "at %s", `{"created_at": "%s"}`, "DOB %s")
	}
	for i := 0; i < 10; i++ {
		u := fmt.Sprintf("%s-%s-4%s-a%s-%s", g.from(hexl, 8), g.from(hexl, 4), g.from(hexl, 3), g.from(hexl, 3), g.from(hexl, 12))
		neg("neg-id", u)
		neg("neg-id", g.from(hexl, 32+8*(i%2)*1), "sha %s", "commit %s", "%s", "md5: %s")
		neg("neg-id", g.from(hexl, 64), "sha256:%s", "%s", "digest %s")
	}
	for _, v := range []string{"sk-test", "ghp_short", "AKIAEXAMPLE", "xoxb-", "sk_live_", "AIza123", "glpat-abc", "eyJhbGciOiJIUzI1NiJ9", "Bearer token", "npm_install", "hf_hub_download", "SK-123"} {
		neg("neg-secret", v, "%s", "token: %s", "key=%s")
	}
	for i := 0; i < 10; i++ {
		vs := []string{g.Digits(8), g.Digits(10), g.Digits(12), "1" + g.Digits(14), "ORD-" + g.Digits(9), g.Digits(6) + "-" + g.Digits(4), "#" + g.Digits(7), g.Digits(3) + "," + g.Digits(3) + "," + g.Digits(3)}
		neg("neg-number", g.Pick(vs), "order %s", "%s", "invoice %s shipped", `{"count": %s}`, "total %s items", "id=%s")
	}
	for i := 0; i < 10; i++ {
		cc := []string{"DE", "GB", "FR", "NL", "ES"}[i%5]
		v := iban(cc, g.bban(ibanFormats[cc]))
		ck := (int(v[3]-'0') + 1 + g.R.IntN(8)) % 10
		v = v[:3] + string(byte('0'+ck)) + v[4:]
		neg("neg-iban", v, "IBAN %s", "%s", "account %s")
	}
	for _, v := range []string{"user@localhost", "@channel", "name@123", "foo@bar", "a@b.c1", "john at example dot com", "git@github.com:org/repo.git", "user@@example.com", "@example.com", "first.last@", "email@domain..com", "npm i @scope/pkg@1.2.3"} {
		neg("neg-email", v, "%s", "see %s", "email: %s")
	}
}
