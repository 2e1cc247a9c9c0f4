// Command genexamples writes the "examples" PII evaluation sets of
// rewrite/testdata: values taken from published registries and issuers'
// documentation rather than from toolfold's own generator (gencases), so
// that a set exists whose values and sentences were not shaped by the
// people tuning the detectors.
//
//   - phone numbers: libphonenumber's example number of every region and
//     every number type it has one for (internal/phonenumbers, metadata
//     from Google's libphonenumber, Apache 2.0), printed by the library's
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
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolfold/toolfold/internal/phonenumbers"
)

type span struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type kase struct {
	ID    string   `json:"id"`
	Text  string   `json:"text"`
	Spans []span   `json:"spans"`
	Tags  []string `json:"tags"`
}

func main() {
	dir := flag.String("dir", "rewrite/testdata", "where the sets are written")
	flag.Parse()
	g := &gen{r: rand.New(rand.NewPCG(13616, 4291))}
	g.phones()
	g.phoneNegatives()
	g.cards()
	g.ibans()
	g.ssns()
	g.ips()
	g.emails()
	g.secrets()
	g.negatives()
	dev, hold := split(g.cases, 2026)
	write(filepath.Join(*dir, "examples_develop.cases.jsonl"), dev)
	write(filepath.Join(*dir, "examples_holdout.cases.jsonl"), hold)
}

// split shuffles each group with a fixed seed and cuts it in half.
func split(cases []kase, seed uint64) (dev, hold []kase) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	groups := map[string][]kase{}
	var keys []string
	for _, c := range cases {
		k := c.Tags[0]
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], c)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		r.Shuffle(len(g), func(i, j int) { g[i], g[j] = g[j], g[i] })
		h := len(g) / 2
		dev = append(dev, g[:h]...)
		hold = append(hold, g[h:]...)
	}
	byID := func(cs []kase) {
		sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	}
	byID(dev)
	byID(hold)
	return dev, hold
}

func write(path string, cases []kase) {
	var b strings.Builder
	for _, c := range cases {
		if c.Spans == nil {
			c.Spans = []span{}
		}
		j, err := json.Marshal(c)
		if err != nil {
			log.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stderr, "%s: %d cases\n", path, len(cases))
}

type gen struct {
	r     *rand.Rand
	cases []kase
	n     int
}

func (g *gen) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

func (g *gen) digits(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + g.r.IntN(10))
	}
	return string(b)
}

// add records a case: tmpl has one "%s" that becomes value; typ "" makes
// it a hard negative.
func (g *gen) add(group, typ, value, tmpl string) {
	g.n++
	c := kase{ID: fmt.Sprintf("ex-%04d", g.n), Text: strings.Replace(tmpl, "%s", value, 1), Tags: []string{group}}
	if typ != "" {
		c.Spans = []span{{Type: typ, Value: value}}
		c.Tags = append(c.Tags, "positive")
	} else {
		c.Tags = append(c.Tags, "hard-negative")
	}
	g.cases = append(g.cases, c)
}

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
	g.r.Shuffle(len(minor), func(i, j int) { minor[i], minor[j] = minor[j], minor[i] })
	regions := append(append([]string{}, majorRegions...), minor[:40]...)
	for _, rg := range regions {
		seen := map[string]bool{}
		for k := 0; k < 4; k++ {
			typ := phoneTypes[g.r.IntN(len(phoneTypes))]
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
	tmpl := g.pick(append(plain, phoneCue...))
	switch g.r.IntN(6) {
	case 0:
		v = intl
	case 1:
		v = phonenumbers.Format(n, phonenumbers.E164)
	case 2:
		// "tel:+1-201-555-0123": the number is what follows "tel:".
		v = strings.TrimPrefix(phonenumbers.Format(n, phonenumbers.RFC3966), "tel:")
		tmpl = g.pick([]string{"tel:%s", "<a href=\"tel:%s\">call</a>", "[phone](tel:%s)"})
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
		if g.r.IntN(3) == 0 {
			from = "US"
		}
		if phonenumbers.GetCountryCodeForRegion(rg) == 1 {
			from = "GB"
		}
		v = phonenumbers.FormatOutOfCountryCallingNumber(n, from)
		tmpl = g.pick(phoneCue)
	}
	g.add("phone-intl", "PHONE", v, tmpl)

	nat := phonenumbers.Format(n, phonenumbers.NATIONAL)
	switch g.r.IntN(5) {
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
	if g.r.IntN(4) == 0 {
		g.add("phone-national-bare", "PHONE", nat, g.pick(plain))
	} else {
		g.add("phone-national", "PHONE", nat, g.pick(phoneCue))
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
			g.add("neg-phone", "", v, g.pick(plain))
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
			switch g.r.IntN(4) {
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
			g.add("card", "CREDIT_CARD", w, g.pick(append(plain, cue...)))
		}
		// The same number with its check digit changed is no card.
		last := (int(v[len(v)-1]-'0') + 1 + g.r.IntN(8)) % 10
		bad := v[:len(v)-1] + string(byte('0'+last))
		if g.r.IntN(2) == 0 {
			bad = fours(bad, " ")
		}
		if g.r.IntN(3) == 0 {
			g.add("neg-card", "", bad, g.pick(cue))
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
		if g.r.IntN(2) == 0 {
			w = fours(v, " ")
		}
		g.add("iban", "IBAN", w, g.pick(append(plain, cue...)))
		if g.r.IntN(3) == 0 {
			// One digit of the account changed: the checksum fails.
			i := len(v) - 1 - g.r.IntN(4)
			for i > 4 && (v[i] < '0' || v[i] > '9') {
				i--
			}
			bad := v[:i] + string(byte('0'+(int(v[i]-'0')+1+g.r.IntN(8))%10)) + v[i+1:]
			if !ibanOK(bad) {
				g.add("neg-iban", "", bad, g.pick(cue))
			}
		}
	}
}

func (g *gen) ssns() {
	cue := []string{"SSN: %s", "ssn %s", "Social Security No. %s", "SSN#%s", `{"ssn":"%s"}`, "SS# %s",
		"social security number %s", "taxpayer SSN=%s"}
	for i := 0; i < 40; i++ {
		area := 1 + g.r.IntN(898)
		if area == 666 {
			area = 667
		}
		a, b, c := fmt.Sprintf("%03d", area), fmt.Sprintf("%02d", 1+g.r.IntN(99)), fmt.Sprintf("%04d", 1+g.r.IntN(9999))
		switch g.r.IntN(3) {
		case 0:
			g.add("ssn", "US_SSN", a+"-"+b+"-"+c, g.pick(append(plain, cue...)))
		case 1:
			g.add("ssn", "US_SSN", a+b+c, g.pick(cue))
		case 2:
			g.add("ssn", "US_SSN", a+" "+b+" "+c, g.pick(cue))
		}
	}
	for _, v := range []string{"000-45-6789", "666-45-6789", "900-12-3456", "987-65-4320", "219-00-9999", "078-05-0000",
		"123-45-0000", "000-00-0000", "999-99-9999", "734-00-1234"} {
		g.add("neg-ssn", "", v, g.pick(cue))
	}
}

func (g *gen) ips() {
	cue := []string{"IP %s", "ip=%s", "from %s port 22", "client %s connected", "X-Forwarded-For: %s", `{"remote_addr":"%s"}`,
		"ssh root@%s", "ping %s", "host %s is down", "addr:%s"}
	for i := 0; i < 30; i++ {
		v := fmt.Sprintf("%d.%d.%d.%d", 1+g.r.IntN(223), g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
		g.add("ip", "IP_ADDRESS", v, g.pick(append(plain, cue...)))
	}
	h := func() string { return fmt.Sprintf("%x", g.r.IntN(1<<16)) }
	h4 := func() string { return fmt.Sprintf("%04x", g.r.IntN(1<<16)) }
	forms := []func() string{
		func() string { return strings.Join([]string{h4(), h4(), h4(), h4(), h4(), h4(), h4(), h4()}, ":") },
		func() string { return "2001:db8::" + h() },
		func() string { return "2001:db8:" + h() + ":" + h() + "::" + h() },
		func() string { return "fe80::" + h() + ":" + h() + ":" + h() + ":" + h() },
		func() string {
			return "::ffff:" + fmt.Sprintf("%d.%d.%d.%d", 1+g.r.IntN(223), g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
		},
		func() string {
			return "64:ff9b::" + fmt.Sprintf("%d.%d.%d.%d", 1+g.r.IntN(223), g.r.IntN(256), g.r.IntN(256), g.r.IntN(256))
		},
		func() string {
			return strings.ToUpper("2a02:" + h() + ":" + h() + ":" + h() + ":" + h() + ":" + h() + ":" + h() + ":" + h())
		},
		func() string { return "2600:" + h() + "::" + h() + ":" + h() },
		func() string { return "fd" + fmt.Sprintf("%02x", g.r.IntN(256)) + ":" + h() + ":" + h() + "::1" },
		func() string { return "::1" },
	}
	for i := 0; i < 40; i++ {
		v := forms[i%len(forms)]()
		tmpl := g.pick(append(plain, cue...))
		if g.r.IntN(5) == 0 {
			tmpl = "http://[%s]:8080/status"
		}
		g.add("ip", "IP_ADDRESS", v, tmpl)
	}
}

func (g *gen) emails() {
	cue := []string{"Email: %s", "e-mail %s", "mailto:%s", "From: \"Ops\" <%s>", "Reply-To: %s", "contact %s", `{"email":"%s"}`,
		"email=%s", "Courriel : %s", "E-Mail-Adresse: %s", "cc: %s;", "write to %s."}
	locals := []string{"info", "a.b", "first.last", "user+tag", "x_y", "no-reply", "j", "Mary.O'Neil", "team.ops-2", "1234", "zz.top"}
	domains := []string{"example.org", "example.co.uk", "mail.example.com", "example.photography", "sub.dept.example.edu",
		"example.travel", "beispiel.de", "exemple.fr", "xn--mller-kva.example", "example.museum"}
	for i := 0; i < 40; i++ {
		g.add("email", "EMAIL", g.pick(locals)+"@"+g.pick(domains), g.pick(append(plain, cue...)))
	}
	// RFC 6530/6531 addresses: non-ASCII local parts and domains.
	for _, v := range []string{"用户@例子.广告", "अजय@डाटा.भारत", "квіточка@пошта.укр", "θσερ@εχαμπλε.ψομ",
		"Dörte@Sörensen.example.com", "коля@пример.рф", "medmenu@例え.テスト", "josé.silva@exemplo.pt",
		"χρήστης@παράδειγμα.ελ", "ñandú@ejemplo.es", "ökonom@straße.de", "støtte@eksempel.no"} {
		g.add("email", "EMAIL", v, g.pick(append(plain, cue...)))
	}
	for _, v := range []string{"first.last@", "@handle", "user@localhost", "pkg@2.1.0", "a@b", "name at example.org",
		"user[at]example[dot]com", "@media", "x@y.z1", "me@@example.org", "git@github.com:acme/tool.git", "@Override"} {
		g.add("neg-email", "", v, g.pick(plain))
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
		b[i] = set[g.r.IntN(len(set))]
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
		func() string { return "xoxa-2-" + g.digits(12) + "-" + g.digits(12) + "-" + g.from(hexl, 32) },
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
		func() string { return g.from(hexl, 32) + "-us" + fmt.Sprint(1+g.r.IntN(20)) },
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
			g.add("secret", "SECRET", mk(), g.pick(append(plain, cue...)))
		}
	}
	g.add("secret", "SECRET", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE"+g.from(alnum+"+/", 56)+"\n"+g.from(alnum+"+/", 64)+"\n-----END EC PRIVATE KEY-----", "key.pem:\n%s")
	g.add("secret", "SECRET", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg"+g.from(alnum+"+/", 50)+"\n-----END PRIVATE KEY-----", "%s\n")
	for _, v := range []string{"sk_live_xxxxxxxxxxxxxxxx", "ghp_XXXXXXXXXXXX", "AKIA...", "token=<redacted>", "YOUR_API_KEY",
		"xoxb-your-token", "sk-...", "Bearer $TOKEN", "glpat-xxxx"} {
		g.add("neg-secret", "", v, g.pick(cue))
	}
}

// notLuhn returns n random digits that fail the Luhn check (a card-length
// number that is no card).
func (g *gen) notLuhn(n int) string {
	for {
		if v := g.digits(n); !luhnOK(v) {
			return v
		}
	}
}

func (g *gen) negatives() {
	neg := func(group, v string, tmpls ...string) {
		if len(tmpls) == 0 {
			tmpls = plain
		}
		g.add(group, "", v, g.pick(tmpls))
	}
	for i := 0; i < 12; i++ {
		y, m, d := 1950+g.r.IntN(75), 1+g.r.IntN(12), 1+g.r.IntN(28)
		hh, mm, ss := g.r.IntN(24), g.r.IntN(60), g.r.IntN(60)
		vs := []string{
			fmt.Sprintf("%d-%02d-%02d %02d:%02d:%02d", y, m, d, hh, mm, ss), fmt.Sprintf("%02d/%02d/%d", d, m, y),
			fmt.Sprintf("%d.%02d.%02d", y, m, d), fmt.Sprintf("%02d-%02d-%d", m, d, y), fmt.Sprintf("%d%02d%02d", y, m, d),
			fmt.Sprintf("%02d:%02d–%02d:%02d", hh, mm, (hh+2)%24, mm), fmt.Sprintf("%d-%02d-%02dT%02d:%02d:%02d.%03d+02:00", y, m, d, hh, mm, ss, g.r.IntN(1000)),
		}
		neg("neg-date", g.pick(vs), "DOB: %s", "born %s", "%s", "updated_at=%s", "Date of birth %s", "at %s")
	}
	for i := 0; i < 10; i++ {
		vs := []string{
			fmt.Sprintf("%d.%d.%d", g.r.IntN(30), g.r.IntN(50), g.r.IntN(400)),
			fmt.Sprintf("v%d.%d.%d-beta.%d", g.r.IntN(9), g.r.IntN(30), g.r.IntN(30), g.r.IntN(9)),
			fmt.Sprintf("%d.%d.%d.%d", 10+g.r.IntN(20), g.r.IntN(9), 10000+g.r.IntN(9000), g.r.IntN(3000)),
		}
		neg("neg-version", g.pick(vs), "version %s", "Chrome/%s", "%s", "pip install tool==%s", "build %s")
	}
	for i := 0; i < 10; i++ {
		vs := []string{
			fmt.Sprintf("%s-%s-%s-%s-%s", g.from(hexl, 8), g.from(hexl, 4), g.from(hexl, 4), g.from(hexl, 4), g.from(hexl, 12)),
			g.from(hexl, 40), g.from(hexl, 64), g.from(hexl, 7),
			strings.Join([]string{g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2), g.from(hexl, 2)}, ":"),
		}
		neg("neg-id", g.pick(vs), "id %s", "commit %s", "%s", "sha256:%s", "mac %s", `{"request_id":"%s"}`)
	}
	for i := 0; i < 14; i++ {
		vs := []string{
			g.digits(9), g.digits(11), g.notLuhn(13), g.notLuhn(16), "978-" + g.digits(1) + "-" + g.digits(3) + "-" + g.digits(5) + "-" + g.digits(1),
			fmt.Sprintf("%d,%03d,%03d.%02d", 1+g.r.IntN(99), g.r.IntN(1000), g.r.IntN(1000), g.r.IntN(100)),
			fmt.Sprintf("%d.%06d, %d.%06d", g.r.IntN(90), g.r.IntN(1000000), g.r.IntN(180), g.r.IntN(1000000)),
			"PO-" + g.digits(4) + "-" + g.digits(6), g.digits(4) + " " + g.digits(4), "#" + g.digits(10),
			fmt.Sprintf("%d ms", 1000000+g.r.IntN(9000000)), "1" + g.digits(12),
		}
		neg("neg-number", g.pick(vs), "order %s", "%s", "tracking %s", "ISBN %s", "amount: %s", "took %s", `{"id":%s}`, "ref=%s", "location %s")
	}
}
