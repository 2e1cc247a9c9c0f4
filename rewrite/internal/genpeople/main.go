// Command genpeople writes the NAME and ADDRESS evaluation sets of
// rewrite/testdata: tool-shaped records (CRM contacts, GitHub and Jira
// users, mail headers, Slack messages, CSV exports, Stripe customers) with
// names of many cultures and scripts, name-free texts (code, tool
// descriptions, product names) as hard negatives, and Presidio's PERSON
// and STREET_ADDRESS spans on the split the other Presidio sets use.
//
// The holdout names and street lines are disjoint from the develop ones
// (names.go). Every random choice comes from fixed seeds; it is run once:
// go run ./rewrite/internal/genpeople
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"path/filepath"
	"strings"

	"github.com/toolfold/toolfold/rewrite/internal/casegen"
)

func main() {
	dir := flag.String("dir", "rewrite/testdata", "where the sets are")
	presidio := flag.String("presidio", "/work/shared/pii/presidio-research_synth_dataset_v2.json", "Presidio's synth_dataset_v2.json")
	flag.Parse()
	for _, half := range []struct {
		name string
		odd  int
		seed uint64
	}{{"develop", 0, 29}, {"holdout", 1, 92}} {
		g := &gen{Set: casegen.New(rand.New(rand.NewPCG(half.seed, 2026)), "people-"+half.name), odd: half.odd}
		g.all()
		write(filepath.Join(*dir, "people_"+half.name+".cases.jsonl"), g.Cases)
	}
	splitPresidio(*dir, *presidio)
}

func write(path string, cases []casegen.Case) {
	if err := casegen.Write(path, cases); err != nil {
		log.Fatal(err)
	}
}

// gen builds one half.
type gen struct {
	*casegen.Set
	odd int // 0: even entries of the pools, 1: odd ones
}

// half keeps the entries of xs at this half's positions.
func (g *gen) half(xs []string) []string {
	var out []string
	for i, x := range xs {
		if i%2 == g.odd {
			out = append(out, x)
		}
	}
	return out
}

// person is a given name and a surname of one culture.
type person struct {
	given, surname, full string
	latin                bool
}

func (g *gen) person(latinOnly bool) person {
	for {
		if !latinOnly && g.R.IntN(12) == 0 {
			n := g.Pick(g.half(cjkNames))
			return person{full: n}
		}
		c := cultures[g.R.IntN(len(cultures))]
		if latinOnly && !c.latin {
			continue
		}
		p := person{given: g.Pick(g.half(c.given)), surname: g.Pick(g.half(c.surnames)), latin: c.latin}
		p.full = p.given + " " + p.surname
		return p
	}
}

func (p person) email() string {
	if !p.latin {
		return "user" + fmt.Sprint(len(p.full)) + "@example.org"
	}
	return strings.ToLower(ascii(p.given)) + "." + strings.ToLower(ascii(p.surname)) + "@example.com"
}

// ascii drops what is not an ASCII letter.
func ascii(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "x"
	}
	return b.String()
}

func (g *gen) street() string { return g.Pick(g.half(streets)) }

// rec is one case being built: its text and labels.
type rec struct {
	text  string
	spans []casegen.Span
}

func (g *gen) add(group string, text string, spans ...casegen.Span) {
	c := casegen.Case{ID: fmt.Sprintf("people-%s-%04d", []string{"develop", "holdout"}[g.odd], len(g.Cases)+1), Text: text, Spans: spans, Tags: []string{group}}
	if len(spans) > 0 {
		c.Tags = append(c.Tags, "positive")
	} else {
		c.Tags = append(c.Tags, "hard-negative")
	}
	g.Cases = append(g.Cases, c)
}

func name(v string) casegen.Span { return casegen.Span{Type: "NAME", Value: v} }
func addr(v string) casegen.Span { return casegen.Span{Type: "ADDRESS", Value: v} }

func js(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	return string(b)
}

func (g *gen) all() {
	for range 25 {
		g.crm()
		g.hubspot()
		g.github()
		g.jira()
		g.mail()
		g.slack()
		g.csv()
		g.stripe()
		g.markdown()
		g.prose()
		g.addressText()
	}
	g.negatives()
}

func (g *gen) crm() {
	p := g.person(false)
	g.add("crm", js(map[string]any{"id": g.R.IntN(99999), "name": p.full, "email": p.email(), "company": g.Pick(companies), "stage": "qualified"}), name(p.full))
}

func (g *gen) hubspot() {
	p := g.person(true)
	g.add("hubspot", js(map[string]any{"id": fmt.Sprint(g.R.IntN(1e6)), "properties": map[string]any{"firstname": p.given, "lastname": p.surname, "email": p.email(), "lifecyclestage": "lead"}}),
		name(p.given), name(p.surname))
}

func (g *gen) github() {
	p, q := g.person(true), g.person(false)
	login := strings.ToLower(ascii(p.given)) + fmt.Sprint(g.R.IntN(99))
	issue := map[string]any{
		"number": g.R.IntN(5000), "title": "Crash when the config file is empty", "state": "open",
		"user":       map[string]any{"login": login, "id": g.R.IntN(1e7), "type": "User", "name": p.full},
		"assignee":   map[string]any{"login": "maint" + fmt.Sprint(g.R.IntN(9)), "name": q.full, "email": q.email()},
		"repository": map[string]any{"name": "toolfold", "full_name": "acme/toolfold", "owner": map[string]any{"login": "acme", "type": "Organization"}},
		"body":       "Steps: run `toolfold serve` with an empty proxy.yaml; it panics in config.Load.",
	}
	g.add("github", js(issue), name(p.full), name(q.full))
}

func (g *gen) jira() {
	p, q := g.person(false), g.person(true)
	issue := map[string]any{"key": fmt.Sprintf("OPS-%d", g.R.IntN(900)+100), "fields": map[string]any{
		"summary":  "Rotate the staging database credentials",
		"assignee": map[string]any{"accountId": fmt.Sprintf("5b10a2844c20165700ede%03d", g.R.IntN(1000)), "displayName": p.full, "active": true},
		"reporter": map[string]any{"displayName": q.full, "emailAddress": q.email()},
		"project":  map[string]any{"key": "OPS", "name": "Operations"},
		"status":   map[string]any{"name": "In Progress"},
	}}
	g.add("jira", js(issue), name(p.full), name(q.full))
}

func (g *gen) mail() {
	p, q := g.person(true), g.person(false)
	var text string
	var spans []casegen.Span
	switch g.R.IntN(3) {
	case 0:
		text = fmt.Sprintf("From: \"%s\" <%s>\nTo: %s <%s>\nSubject: Invoice 4471\n\nHi %s,\n\nplease find the invoice attached.\n\nBest regards,\n%s",
			p.full, p.email(), q.full, q.email(), q.given, p.full)
		spans = []casegen.Span{name(p.full), name(q.full), name(p.full)}
		if q.given != "" {
			spans = append(spans, name(q.given))
		} else {
			text = strings.Replace(text, "Hi ,", "Hi,", 1)
		}
	case 1:
		text = fmt.Sprintf("Dear %s,\n\nThank you for your order. It ships on Monday.\n\nKind regards,\n%s\nCustomer Service", p.full, q.full)
		spans = []casegen.Span{name(p.full), name(q.full)}
	default:
		text = js(map[string]any{"id": "msg-" + fmt.Sprint(g.R.IntN(1e5)), "from": fmt.Sprintf("%s <%s>", p.full, p.email()), "to": []string{q.full + " <" + q.email() + ">"}, "subject": "Re: quarterly numbers", "snippet": "Sounds good, see you then."})
		spans = []casegen.Span{name(p.full), name(q.full)}
	}
	for _, e := range []string{p.email(), q.email()} {
		if strings.Contains(text, e) {
			spans = append(spans, casegen.Span{Type: "EMAIL", Value: e})
		}
	}
	g.add("mail", text, spans...)
}

func (g *gen) slack() {
	p, q := g.person(false), g.person(true)
	msg := map[string]any{"type": "message", "user": fmt.Sprintf("U0%07d", g.R.IntN(1e7)), "ts": "1700000000.000200",
		"user_profile": map[string]any{"real_name": p.full, "display_name": strings.ToLower(ascii(p.given))},
		"text":         fmt.Sprintf("Thanks! I'll ask %s about the deploy window.", q.full)}
	g.add("slack", js(msg), name(p.full), name(q.full))
}

func (g *gen) csv() {
	var b strings.Builder
	var spans []casegen.Span
	switch g.R.IntN(2) {
	case 0:
		b.WriteString("Name,Email,City,Plan\n")
		for range 3 {
			p := g.person(false)
			fmt.Fprintf(&b, "%s,%s,%s,pro\n", p.full, p.email(), g.Pick(cities))
			spans = append(spans, name(p.full), casegen.Span{Type: "EMAIL", Value: p.email()})
		}
	default:
		b.WriteString("first_name\tlast_name\tstreet\tzip\n")
		for range 3 {
			p := g.person(true)
			s := g.street()
			fmt.Fprintf(&b, "%s\t%s\t%s\t%05d\n", p.given, p.surname, s, g.R.IntN(99999))
			spans = append(spans, name(p.given), name(p.surname), addr(s))
		}
	}
	g.add("csv", strings.TrimSuffix(b.String(), "\n"), spans...)
}

func (g *gen) stripe() {
	p := g.person(false)
	s := g.street()
	cust := map[string]any{"id": fmt.Sprintf("cus_%08d", g.R.IntN(1e8)), "object": "customer", "name": p.full, "email": p.email(),
		"address":  map[string]any{"line1": s, "line2": nil, "city": g.Pick(cities), "postal_code": fmt.Sprintf("%05d", g.R.IntN(99999)), "country": "US"},
		"shipping": map[string]any{"name": p.full, "address": map[string]any{"line1": s, "city": g.Pick(cities)}},
		"currency": "usd", "delinquent": false}
	g.add("stripe", js(cust), name(p.full), name(p.full), addr(s), addr(s), casegen.Span{Type: "EMAIL", Value: p.email()})
}

func (g *gen) markdown() {
	p, q := g.person(false), g.person(true)
	text := fmt.Sprintf("| Ticket | Assignee | Status |\n|---|---|---|\n| OPS-%d | %s | open |\n| OPS-%d | %s | done |", g.R.IntN(900), p.full, g.R.IntN(900), q.full)
	g.add("markdown", text, name(p.full), name(q.full))
}

func (g *gen) prose() {
	p := g.person(true)
	var text string
	switch g.R.IntN(5) {
	case 0:
		text = fmt.Sprintf("Meeting notes: %s will send the revised contract by Friday.", p.full)
	case 1:
		text = fmt.Sprintf("The ticket was escalated to %s after the second outage.", p.full)
	case 2:
		text = fmt.Sprintf("Name: %s\nRole: Account manager\nOffice: remote", p.full)
	case 3:
		text = fmt.Sprintf("Approved by %s on 2026-03-02.", p.full)
	default:
		text = fmt.Sprintf("Please contact Dr. %s for the lab results.", p.surname)
		g.add("prose", text, name(p.surname))
		return
	}
	g.add("prose", text, name(p.full))
}

func (g *gen) addressText() {
	s := g.street()
	var text string
	switch g.R.IntN(4) {
	case 0:
		text = fmt.Sprintf("Ship to: %s, %s", s, g.Pick(cities))
	case 1:
		text = js(map[string]any{"order": g.R.IntN(1e5), "delivery": map[string]any{"street": s, "city": g.Pick(cities)}})
	case 2:
		text = fmt.Sprintf("Our office moved to %s, %s.", s, g.Pick(cities))
	default:
		text = js(map[string]any{"billing_address": map[string]any{"address1": s, "zip": fmt.Sprintf("%05d", g.R.IntN(99999))}})
	}
	g.add("address", text, addr(s))
}
