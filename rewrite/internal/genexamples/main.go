// Command genexamples writes the "examples" PII evaluation sets of
// rewrite/testdata: values taken from published registries and issuers'
// documentation rather than from toolfold's own generator (gencases), so
// that a set exists whose values and sentences were not shaped by the
// people tuning the detectors.
//
//   - phone numbers: libphonenumber's example number of every region and
//     every number type it has one for (internal/third_party/phonenumbers,
//     metadata from Google's libphonenumber, Apache 2.0), printed by the library's
//     own formatter (national, international, E.164, RFC 3966, dialled
//     from abroad) with its spaces kept or turned into other separators;
//   - IBANs: the example IBAN of every country of the SWIFT IBAN registry
//     (ISO 13616), in electronic and print form;
//   - cards: test numbers that card issuers and payment processors publish;
//   - IPv4 and IPv6 addresses in the forms RFC 4291 and RFC 5952 describe;
//   - emails, internationalized ones (RFC 6531) included;
//   - US SSNs, and secrets in providers' documented formats;
//   - hard negatives made by perturbing those (a wrong check digit, a
//     digit too few) and look-alikes (versions, dates, UUIDs, hashes).
//
// It is run once (go run ./rewrite/internal/genexamples); every random
// choice comes from a fixed seed, so a rerun writes the same files. The
// cases are split once, per group, into examples_develop and
// examples_holdout; only the holdout's aggregate figures are ever read.
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
	dir := flag.String("dir", "rewrite/testdata", "where the sets are written")
	flag.Parse()
	g := &gen{casegen.New(rand.New(rand.NewPCG(13616, 4291)), "ex")}
	g.phones()
	g.phoneNegatives()
	g.cards()
	g.ibans()
	g.ssns()
	g.ips()
	g.emails()
	g.secrets()
	g.negatives()
	// Per group, each half in ID order.
	dev, hold := casegen.Split(g.Cases, rand.New(rand.NewPCG(2026, 2027)))
	casegen.SortByID(dev)
	casegen.SortByID(hold)
	write(filepath.Join(*dir, "examples_develop.cases.jsonl"), dev)
	write(filepath.Join(*dir, "examples_holdout.cases.jsonl"), hold)
}

func write(path string, cases []casegen.Case) {
	if err := casegen.Write(path, cases); err != nil {
		log.Fatal(err)
	}
}

// gen makes the cases.
type gen struct{ *casegen.Set }

// Sentences with no word naming the value's type: the value sits after
// all kinds of punctuation.
var plain = []string{
	"%s",
	"Noted: %s (see ticket).",
	"I wrote down %s yesterday.",
	`{"data":{"v":"%s"}}`,
	"v=%s;",
	"?q=%s&lang=en",
	"| Jane | %s | yes |",
	"\"%s\"",
	"<span>%s</span>",
	"* %s",
	"name,%s,2024",
	"value:%s",
	"[%s]",
	"- field → %s",
	"Copied: «%s».",
	"INFO user updated %s ok",
}

// Regions most texts come from; the rest of libphonenumber's regions are
// sampled too, less often.
var majorRegions = []string{
	"US", "CA", "GB", "IE", "DE", "AT", "CH", "FR", "BE", "NL", "LU", "IT", "ES", "PT", "SE", "NO", "DK", "FI", "IS",
	"PL", "CZ", "SK", "HU", "RO", "BG", "GR", "HR", "SI", "RS", "UA", "RU", "TR", "IL", "AE", "SA", "EG", "MA", "NG",
	"KE", "ZA", "IN", "PK", "BD", "CN", "HK", "TW", "JP", "KR", "SG", "MY", "TH", "VN", "ID", "PH", "AU", "NZ",
	"MX", "BR", "AR", "CL", "CO", "PE",
}

var phoneTypes = []phonenumbers.PhoneNumberType{
	phonenumbers.FIXED_LINE, phonenumbers.MOBILE, phonenumbers.MOBILE, phonenumbers.TOLL_FREE, phonenumbers.VOIP,
}

// Cue words before or after a number, in the languages the regions speak.
var phoneCue = []string{
	"Phone: %s", "phone %s", "Tel. %s", "tel: %s", "Tel %s", "Mobile %s", "mobile: %s", "Cell: %s", "call %s",
	"Call us on %s.", "Please ring %s after 6pm.", "Text me at %s", "WhatsApp %s", "Fax: %s", "telephone no. %s",
	"Telefon: %s", "Handy: %s", "Tél. : %s", "Téléphone %s", "Teléfono: %s", "móvil %s", "Telefone: %s",
	"contact number %s", `{"phone":"%s"}`, `{"mobileNumber": "%s"}`, "phone=%s", "tel=%s&x=1", "Office: %s",
	"%s (mobile)", "%s (office)", "You can reach me on %s.", "phone:%s",
}

func (g *gen) phones() {
	var minor []string
	for r := range phonenumbers.GetSupportedRegions() {
		major := false
		for _, m := range majorRegions {
			major = major || m == r
		}
		if !major {
			minor = append(minor, r)
		}
	}
	sort.Strings(minor)
	g.R.Shuffle(len(minor), func(i, j int) { minor[i], minor[j] = minor[j], minor[i] })
	regions := append(append([]string{}, majorRegions...), minor[:40]...)
	for _, rg := range regions {
		seen := map[string]bool{}
		for k := 0; k < 4; k++ {
			typ := phoneTypes[g.R.IntN(len(phoneTypes))]
			ex := phonenumbers.GetExampleNumberForType(rg, typ)
			if ex == nil {
				ex = phonenumbers.GetExampleNumber(rg)
			}
			if ex == nil {
				continue
			}
			e164 := phonenumbers.Format(ex, phonenumbers.E164)
			if seen[e164] {
				continue
			}
			seen[e164] = true
			g.phone(rg, ex)
		}
	}
}

// phone adds one international form and one national form of n.
func (g *gen) phone(rg string, n *phonenumbers.PhoneNumber) {
	intl := phonenumbers.Format(n, phonenumbers.INTERNATIONAL)
	var v string
	tmpl := g.Pick(append(plain, phoneCue...))
	switch g.R.IntN(6) {
	case 0:
		v = intl
	case 1:
		v = phonenumbers.Format(n, phonenumbers.E164)
	case 2:
		// "tel:+1-201-555-0123": the number is what follows "tel:".
		v = strings.TrimPrefix(phonenumbers.Format(n, phonenumbers.RFC3966), "tel:")
		tmpl = g.Pick([]string{"tel:%s", "<a href=\"tel:%s\">call</a>", "[phone](tel:%s)"})
	case 3:
		v = strings.ReplaceAll(intl, " ", "-")
	case 4:
		v = strings.ReplaceAll(intl, " ", ".")
	case 5:
		// Dialled from another country: "00 44 20 …", "011 44 20 …".
		from := "DE"
		if rg == "DE" || phonenumbers.GetCountryCodeForRegion(rg) == 49 {
			from = "FR"
		}
		if g.R.IntN(3) == 0 {
			from = "US"
		}
		if phonenumbers.GetCountryCodeForRegion(rg) == 1 {
			from = "GB"
		}
		v = phonenumbers.FormatOutOfCountryCallingNumber(n, from)
		tmpl = g.Pick(phoneCue)
	}
	g.Add("phone-intl", "PHONE", v, tmpl)

	nat := phonenumbers.Format(n, phonenumbers.NATIONAL)
	switch g.R.IntN(5) {
	case 1:
		nat = strings.ReplaceAll(nat, " ", "-")
	case 2:
		nat = digitsOnly(nat)
	case 3:
		nat = strings.ReplaceAll(nat, " ", ".")
	}
	if digitsOnly(nat) == "" {
		return
	}
	// Most national numbers come with a word saying what they are; some
	// do not.
	if g.R.IntN(4) == 0 {
		g.Add("phone-national-bare", "PHONE", nat, g.Pick(plain))
	} else {
		g.Add("phone-national", "PHONE", nat, g.Pick(phoneCue))
	}
}

func digitsOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// phoneNegatives: example numbers cut short or lengthened until
// libphonenumber says they are no possible number, and other digit groups
// that are not phone numbers.
func (g *gen) phoneNegatives() {
	for _, rg := range majorRegions[:30] {
		ex := phonenumbers.GetExampleNumber(rg)
		if ex == nil {
			continue
		}
		e := phonenumbers.Format(ex, phonenumbers.E164)
		for _, v := range []string{e[:len(e)-3], e + "0123456"} {
			p, err := phonenumbers.Parse(v, "ZZ")
			if err == nil && phonenumbers.IsPossibleNumber(p) {
				continue
			}
			g.Add("neg-phone", "", v, g.Pick(plain))
			break
		}
	}
}

func luhnOK(s string) bool {
	sum, dbl := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		v := int(s[i] - '0')
		if dbl {
			if v *= 2; v > 9 {
				v -= 9
			}
		}
		sum += v
		dbl = !dbl
	}
	return sum%10 == 0
}

// Test numbers published by issuers and processors (Stripe, Adyen,
// Braintree, Checkout.com, Worldpay, PayPal sandbox); any that fails the
// Luhn check is a transcription error and is left out.
var issuerCards = []string{
	"4242424242424242", "4000056655665556", "4000002500003155", "4000000000003220", "4000000000009995",
	"4000000760000002", "4000001240000000", "4000004840008001", "4000000000000077", "4000003720000278",
	"4111111111111111", "4005519200000004", "4009348888881881", "4012000033330026", "4012000077777777",
	"4012888888881881", "4217651111111119", "4500600000000061", "4917610000000000", "4462030000000000",
	"4917300800000000", "4484070000000000", "4988438843884305", "4166676667666746", "4646464646464644",
	"5555555555554444", "2223003122003222", "5200828282828210", "5105105105105100", "5555341244441115",
	"5577000055770004", "5136333333333335", "5585558555855583", "2222400010000008", "2222410740360010",
	"378282246310005", "371449635398431", "378734493671000", "370000000000002", "370000000100018",
	"6011111111111117", "6011000990139424", "6011601160116611", "6445644564456445", "6011000400000000",
	"3056930009020004", "36227206271667", "36006666333344", "30569309025904", "38520000023237",
	"3566002020360505", "3530111333300000", "3569990010095841", "3566111111111113",
	"6200000000000005", "6205500000000000004", "6250946000000016", "6243030000000001",
	"6759649826438453", "6771798021000008", "5000550000000029", "6703444444444449",
	"2200000000000004", "2201382000000013",
}

func fours(s, sep string) string {
	var parts []string
	for len(s) > 4 {
		parts = append(parts, s[:4])
		s = s[4:]
	}
	return strings.Join(append(parts, s), sep)
}

func (g *gen) cards() {
	cue := []string{"Card: %s", "card number %s", "paid by card %s", "Visa %s", "CC# %s", "cc=%s", `{"pan":"%s"}`,
		"Kartennummer: %s", "numéro de carte %s", "test card %s works", "card:%s"}
	for _, v := range issuerCards {
		if !luhnOK(v) {
			continue
		}
		for k := 0; k < 2; k++ {
			w := v
			switch g.R.IntN(4) {
			case 1:
				w = fours(v, " ")
				if len(v) == 15 {
					w = v[:4] + " " + v[4:10] + " " + v[10:]
				}
			case 2:
				w = fours(v, "-")
				if len(v) == 15 {
					w = v[:4] + "-" + v[4:10] + "-" + v[10:]
				}
			}
			g.Add("card", "CREDIT_CARD", w, g.Pick(append(plain, cue...)))
		}
		// The same number with its check digit changed is no card.
		last := (int(v[len(v)-1]-'0') + 1 + g.R.IntN(8)) % 10
		bad := v[:len(v)-1] + string(byte('0'+last))
		if g.R.IntN(2) == 0 {
			bad = fours(bad, " ")
		}
		if g.R.IntN(3) == 0 {
			g.Add("neg-card", "", bad, g.Pick(cue))
		}
	}
}

// The example IBAN of each country in the SWIFT IBAN registry (ISO 13616).
var registryIBANs = []string{
	"AD1200012030200359100100", "AE070331234567890123456", "AL47212110090000000235698741",
	"AT611904300234573201", "AZ21NABZ00000000137010001944", "BA391290079401028494", "BE68539007547034",
	"BG80BNBG96611020345678", "BH67BMAG00001299123456", "BR1800360305000010009795493C1", "BY13NBRB3600900000002Z00AB00",
	"CH9300762011623852957", "CR05015202001026284066", "CY17002001280000001200527600", "CZ6508000000192000145399",
	"DE89370400440532013000", "DK5000400440116243", "DO28BAGR00000001212453611324", "EE382200221020145685",
	"EG380019000500000000263180002", "ES9121000418450200051332", "FI2112345600000785", "FO6264600001631634",
	"FR1420041010050500013M02606", "GB29NWBK60161331926819", "GE29NB0000000101904917", "GI75NWBK000000007099453",
	"GL8964710001000206", "GR1601101250000000012300695", "GT82TRAJ01020000001210029690", "HR1210010051863000160",
	"HU42117730161111101800000000", "IE29AIBK93115212345678", "IL620108000000099999999", "IQ98NBIQ850123456789012",
	"IS140159260076545510730339", "IT60X0542811101000000123456", "JO94CBJO0010000000000131000302",
	"KW81CBKU0000000000001234560101", "KZ86125KZT5004100100", "LB62099900000001001901229114",
	"LC55HEMM000100010012001200023015", "LI21088100002324013AA", "LT121000011101001000", "LU280019400644750000",
	"LV80BANK0000435195001", "MC5811222000010123456789030", "MD24AG000225100013104168", "ME25505000012345678951",
	"MK07250120000058984", "MR1300020001010000123456753", "MT84MALT011000012345MTLCAST001S",
	"MU17BOMM0101101030300200000MUR", "NL91ABNA0417164300", "NO9386011117947", "PK36SCBL0000001123456702",
	"PL61109010140000071219812874", "PS92PALS000000000400123456702", "PT50000201231234567890154",
	"QA58DOHB00001234567890ABCDEFG", "RO49AAAA1B31007593840000", "RS35260005601001611379",
	"SA0380000000608010167519", "SC18SSCB11010000000000001497USD", "SE4550000000058398257466",
	"SI56263300012039086", "SK3112000000198742637541", "SM86U0322509800000000270100", "ST68000100010051845310112",
	"SV62CENR00000000000000700025", "TL380080012345678910157", "TN5910006035183598478831",
	"TR330006100519786457841326", "UA213223130000026007233566001", "VA59001123000012345678",
	"VG96VPVG0000012345678901", "XK051212012345678906",
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

func ibanOK(v string) bool { return mod97(v[4:]+v[:4]) == 1 }

func (g *gen) ibans() {
	cue := []string{"IBAN: %s", "IBAN %s", "Please transfer to %s.", "account %s", `{"iban":"%s"}`, "iban=%s",
		"Bankverbindung: %s", "RIB/IBAN : %s", "beneficiary account %s"}
	for _, v := range registryIBANs {
		if !ibanOK(v) {
			continue
		}
		w := v
		if g.R.IntN(2) == 0 {
			w = fours(v, " ")
		}
		g.Add("iban", "IBAN", w, g.Pick(append(plain, cue...)))
		if g.R.IntN(3) == 0 {
			// One digit of the account changed: the checksum fails.
			i := len(v) - 1 - g.R.IntN(4)
			for i > 4 && (v[i] < '0' || v[i] > '9') {
				i--
			}
			bad := v[:i] + string(byte('0'+(int(v[i]-'0')+1+g.R.IntN(8))%10)) + v[i+1:]
			if !ibanOK(bad) {
				g.Add("neg-iban", "", bad, g.Pick(cue))
			}
		}
	}
}

func (g *gen) ssns() {
	cue := []string{"SSN: %s", "ssn %s", "Social Security No. %s", "SSN#%s", `{"ssn":"%s"}`, "SS# %s",
		"social security number %s", "taxpayer SSN=%s"}
	for i := 0; i < 40; i++ {
		area := 1 + g.R.IntN(898)
		if area == 666 {
			area = 667
		}
		a, b, c := fmt.Sprintf("%03d", area), fmt.Sprintf("%02d", 1+g.R.IntN(99)), fmt.Sprintf("%04d", 1+g.R.IntN(9999))
		switch g.R.IntN(3) {
		case 0:
			g.Add("ssn", "US_SSN", a+"-"+b+"-"+c, g.Pick(append(plain, cue...)))
		case 1:
			g.Add("ssn", "US_SSN", a+b+c, g.Pick(cue))
		case 2:
			g.Add("ssn", "US_SSN", a+" "+b+" "+c, g.Pick(cue))
		}
	}
	for _, v := range []string{"000-45-6789", "666-45-6789", "900-12-3456", "987-65-4320", "219-00-9999", "078-05-0000",
		"123-45-0000", "000-00-0000", "999-99-9999", "734-00-1234"} {
		g.Add("neg-ssn", "", v, g.Pick(cue))
	}
}

func (g *gen) ips() {
	cue := []string{"IP %s", "ip=%s", "from %s port 22", "client %s connected", "X-Forwarded-For: %s", `{"remote_addr":"%s"}`,
		"ssh root@%s", "ping %s", "host %s is down", "addr:%s"}
	for i := 0; i < 30; i++ {
		v := fmt.Sprintf("%d.%d.%d.%d", 1+g.R.IntN(223), g.R.IntN(256), g.R.IntN(256), g.R.IntN(256))
		g.Add("ip", "IP_ADDRESS", v, g.Pick(append(plain, cue...)))
	}
	h := func() string { return fmt.Sprintf("%x", g.R.IntN(1<<16)) }
	h4 := func() string { return fmt.Sprintf("%04x", g.R.IntN(1<<16)) }
	forms := []func() string{
		func() string { return strings.Join([]string{h4(), h4(), h4(), h4(), h4(), h4(), h4(), h4()}, ":") },
		func() string { return "2001:db8::" + h() },
		func() string { return "2001:db8:" + h() + ":" + h() + "::" + h() },
		func() string { return "fe80::" + h() + ":" + h() + ":" + h() + ":" + h() },
		func() string {
			return "::ffff:" + fmt.Sprintf("%d.%d.%d.%d", 1+g.R.IntN(223), g.R.IntN(256), g.R.IntN(256), g.R.IntN(256))
		},
		func() string {
			return "64:ff9b::" + fmt.Sprintf("%d.%d.%d.%d", 1+g.R.IntN(223), g.R.IntN(256), g.R.IntN(256), g.R.IntN(256))
		},
		func() string {
			return strings.ToUpper("2a02:" + h() + ":" + h() + ":" + h() + ":" + h() + ":" + h() + ":" + h() + ":" + h())
		},
		func() string { return "2600:" + h() + "::" + h() + ":" + h() },
		func() string { return "fd" + fmt.Sprintf("%02x", g.R.IntN(256)) + ":" + h() + ":" + h() + "::1" },
		func() string { return "::1" },
	}
	for i := 0; i < 40; i++ {
		v := forms[i%len(forms)]()
		tmpl := g.Pick(append(plain, cue...))
		if g.R.IntN(5) == 0 {
			tmpl = "http://[%s]:8080/status"
		}
		g.Add("ip", "IP_ADDRESS", v, tmpl)
	}
}

func (g *gen) emails() {
	cue := []string{"Email: %s", "e-mail %s", "mailto:%s", "From: \"Ops\" <%s>", "Reply-To: %s", "contact %s", `{"email":"%s"}`,
		"email=%s", "Courriel : %s", "E-Mail-Adresse: %s", "cc: %s;", "write to %s."}
	locals := []string{"info", "a.b", "first.last", "user+tag", "x_y", "no-reply", "j", "Mary.O'Neil", "team.ops-2", "1234", "zz.top"}
	domains := []string{"example.org", "example.co.uk", "mail.example.com", "example.photography", "sub.dept.example.edu",
		"example.travel", "beispiel.de", "exemple.fr", "xn--mller-kva.example", "example.museum"}
	for i := 0; i < 40; i++ {
		g.Add("email", "EMAIL", g.Pick(locals)+"@"+g.Pick(domains), g.Pick(append(plain, cue...)))
	}
	// RFC 6530/6531 addresses: non-ASCII local parts and domains.
	for _, v := range []string{"用户@例子.广告", "अजय@डाटा.भारत", "квіточка@пошта.укр", "θσερ@εχαμπλε.ψομ",
		"Dörte@Sörensen.example.com", "коля@пример.рф", "medmenu@例え.テスト", "josé.silva@exemplo.pt",
		"χρήστης@παράδειγμα.ελ", "ñandú@ejemplo.es", "ökonom@straße.de", "støtte@eksempel.no"} {
		g.Add("email", "EMAIL", v, g.Pick(append(plain, cue...)))
	}
	for _, v := range []string{"first.last@", "@handle", "user@localhost", "pkg@2.1.0", "a@b", "name at example.org",
		"user[at]example[dot]com", "@media", "x@y.z1", "me@@example.org", "git@github.com:acme/tool.git", "@Override"} {
		g.Add("neg-email", "", v, g.Pick(plain))
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
	cue := []string{"token=%s", "export TOKEN=%s", `{"api_key":"%s"}`, "Authorization: Bearer %s", "secret: %s", "key %s"}
	makers := []func() string{
		func() string { return "ghu_" + g.from(alnum, 36) },
		func() string { return "ghr_" + g.from(alnum, 36) },
		func() string { return "glptt-" + g.from(hexl, 40) },
		func() string { return "gldt-" + g.from(b64u, 20) },
		func() string { return "xoxa-2-" + g.Digits(12) + "-" + g.Digits(12) + "-" + g.from(hexl, 32) },
		func() string { return "rk_test_" + g.from(alnum, 24) },
		func() string { return "whsec_" + g.from(alnum, 32) },
		func() string { return "sk-svcacct-" + g.from(b64u, 64) },
		func() string { return "sk-ant-admin01-" + g.from(b64u, 93) + "AA" },
		func() string { return "gsk_" + g.from(alnum, 52) },
		func() string { return "r8_" + g.from(alnum, 37) },
		func() string { return "pplx-" + g.from(alnum, 48) },
		func() string { return "xai-" + g.from(alnum, 80) },
		func() string { return "GOCSPX-" + g.from(b64u, 28) },
		func() string { return "ya29." + g.from(b64u, 120) },
		func() string { return "key-" + g.from(hexl, 32) },
		func() string { return g.from(hexl, 32) + "-us" + fmt.Sprint(1+g.R.IntN(20)) },
		func() string { return "sbp_" + g.from(hexl, 40) },
		func() string { return "shpss_" + g.from("abcdefABCDEF0123456789", 32) },
		func() string { return "dp.st." + g.from(alnum, 43) },
		func() string { return "secret_" + g.from(alnum, 43) },
		func() string {
			return "https://hooks.slack.com/services/T" + g.from(upnum, 8) + "/B" + g.from(upnum, 10) + "/" + g.from(alnum, 24)
		},
		func() string { return "AKIA" + g.from(upnum, 16) },
		func() string { return "npm_" + g.from(alnum, 36) },
	}
	for _, mk := range makers {
		for k := 0; k < 2; k++ {
			g.Add("secret", "SECRET", mk(), g.Pick(append(plain, cue...)))
		}
	}
	g.Add("secret", "SECRET", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE"+g.from(alnum+"+/", 56)+"\n"+g.from(alnum+"+/", 64)+"\n-----END EC PRIVATE KEY-----", "key.pem:\n%s")
	g.Add("secret", "SECRET", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg"+g.from(alnum+"+/", 50)+"\n-----END PRIVATE KEY-----", "%s\n")
	for _, v := range []string{"sk_live_xxxxxxxxxxxxxxxx", "ghp_XXXXXXXXXXXX", "AKIA...", "token=<redacted>", "YOUR_API_KEY",
		"xoxb-your-token", "sk-...", "Bearer $TOKEN", "glpat-xxxx"} {
		g.Add("neg-secret", "", v, g.Pick(cue))
	}
}

// notLuhn returns n random digits that fail the Luhn check (a card-length
// number that is no card).
func (g *gen) notLuhn(n int) string {
	for {
		if v := g.Digits(n); !luhnOK(v) {
			return v
		}
	}
}

func (g *gen) negatives() {
	neg := func(group, v string, tmpls ...string) {
		if len(tmpls) == 0 {
			tmpls = plain
		}
		g.Add(group, "", v, g.Pick(tmpls))
	}
	for i := 0; i < 12; i++ {
		y, m, d := 1950+g.R.IntN(75), 1+g.R.IntN(12), 1+g.R.IntN(28)
		hh, mm, ss := g.R.IntN(24), g.R.IntN(60), g.R.IntN(60)
		vs := []string{
			fmt.Sprintf("%d-%02d-%02d %02d:%02d:%02d", y, m, d, hh, mm, ss), fmt.Sprintf("%02d/%02d/%d", d, m, y),
			fmt.Sprintf("%d.%02d.%02d", y, m, d), fmt.Sprintf("%02d-%02d-%d", m, d, y), fmt.Sprintf("%d%02d%02d", y, m, d),
			fmt.Sprintf("%02d:%02d–%02d:%02d", hh, mm, (hh+2)%24, mm), fmt.Sprintf("%d-%02d-%02dT%02d:%02d:%02d.%03d+02:00", y, m, d, hh, mm, ss, g.R.IntN(1000)),
		}
		neg("neg-date", g.Pick(vs), "DOB: %s", "born %s", "%s", "updated_at=%s", "Date of birth %s", "at %s")
	}
	for i := 0; i < 10; i++ {
		vs := []string{
			fmt.Sprintf("%d.%d.%d", g.R.IntN(30), g.R.IntN(50), g.R.IntN(400)),
			fmt.Sprintf("v%d.%d.%d-beta.%d", g.R.IntN(9), g.R.IntN(30), g.R.IntN(30), g.R.IntN(9)),
			fmt.Sprintf("%d.%d.%d.%d", 10+g.R.IntN(20), g.R.IntN(9), 10000+g.R.IntN(9000), g.R.IntN(3000)),
		}
		neg("neg-version", g.Pick(vs), "version %s", "Chrome/%s", "%s", "pip install tool==%s", "build %s")
	}
	for i := 0; i < 10; i++ {
		vs := []string{
			fmt.Sprintf("%s-%s-%s-%s-%s", g.from(hexl, 8), g.from(hexl, 4), g.from(hexl, 4), g.from(hexl, 4), g.from(hexl, 12)),
			g.from(hexl, 40), g.from(hexl, 64), g.from(hexl, 7),
			strings.Join([]string{g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2)}, ":"),
		}
		neg("neg-id", g.Pick(vs), "id %s", "commit %s", "%s", "sha256:%s", "mac %s", `{"request_id":"%s"}`)
	}
	for i := 0; i < 14; i++ {
		vs := []string{
			g.Digits(9), g.Digits(11), g.notLuhn(13), g.notLuhn(16), "978-" + g.Digits(1) + "-" + g.Digits(3) + "-" + g.Digits(5) + "-" + g.Digits(1),
			fmt.Sprintf("%d,%03d,%03d.%02d", 1+g.R.IntN(99), g.R.IntN(1000), g.R.IntN(1000), g.R.IntN(100)),
			fmt.Sprintf("%d.%06d, %d.%06d", g.R.IntN(90), g.R.IntN(1000000), g.R.IntN(180), g.R.IntN(1000000)),
			"PO-" + g.Digits(4) + "-" + g.Digits(6), g.Digits(4) + " " + g.Digits(4), "#" + g.Digits(10),
			fmt.Sprintf("%d ms", 1000000+g.R.IntN(9000000)), "1" + g.Digits(12),
		}
		neg("neg-number", g.Pick(vs), "order %s", "%s", "tracking %s", "ISBN %s", "amount: %s", "took %s", `{"id":%s}`, "ref=%s", "location %s")
	}
}
