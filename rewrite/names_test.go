package rewrite

import (
	"strings"
	"testing"
)

// TestNameAndAddressText: names and street lines in text, by their cues
// and by the lists; product, company and place names, headings and code
// stay.
func TestNameAndAddressText(t *testing.T) {
	d := mustDetector(t, Defaults())
	for _, tc := range []struct{ in, want string }{
		{"Meeting notes: Linda Johnson will send it.", "NAME:Linda Johnson"},
		{"Dear Élodie Moreau,\nthanks", "NAME:Élodie Moreau"},
		{"Hi Team,\nthe build is green", ""},
		{"Please contact Dr. Okafor today.", "NAME:Okafor"},
		{"Name: Toshimi Arata\nRole: admin", "NAME:Toshimi Arata"},
		{"Best regards,\nDohyun Choi", "NAME:Dohyun Choi"},
		{`From: "Jane Roe" <jane@example.org>`, "NAME:Jane Roe | EMAIL:jane@example.org"},
		{"my name is Rubija", "NAME:Rubija"},
		{"Have you been to a Ravil G Yefimov concert?", "NAME:Ravil G Yefimov"},
		{"Jennifer is a very sympathetic person.", "NAME:Jennifer"},
		{"John Deere 5075E tractor in stock.", ""},
		{"Open Claude Desktop and Claude Code.", ""},
		{"Stanley Holdings Ltd filed its accounts.", ""},
		{"Lauren Edison wrote back.", "NAME:Lauren Edison"}, // surnames of brands are people's too
		{"We spoke to Amanda's daughter.", "NAME:Amanda"},
		{"I'm Daniel's daughter.", "NAME:Daniel"},
		{"Nicole: Remember me?\nArgs: none\nMark: done", "NAME:Nicole"},
		{"We invited Erik, Amy and Kristen.", "NAME:Erik | NAME:Amy | NAME:Kristen"},
		{"Bryce, can you call me?", "NAME:Bryce"},
		{"I asked my son Tomás to come.", "NAME:Tomás"},
		{"\"It works,\" says Okafor.", "NAME:Okafor"},
		{"Producer Liviana Palerma explained it.", "NAME:Liviana Palerma"},
		{"Macy's stores open at nine.", ""},
		{"Scott is on call today.", "NAME:Scott"},
		{"// Len is the number of tools.", ""},
		{"Vilmer Holmberg joined the team.", "NAME:Vilmer Holmberg"},
		{"Duqyaha Karataev signed it.", "NAME:Duqyaha Karataev"},
		{"The Lincoln Center season opens.", ""},
		{"He grew up in San Francisco.", ""},
		{"Deploy with Jenkins and Jest.", ""},
		{"See FileLess and NaN in the code.", ""},
		{"My IBAN is unknown.", ""},
		{"Ship to 1600 Amphitheatre Parkway, Mountain View", "ADDRESS:1600 Amphitheatre Parkway"},
		{"Office: 500 W Madison Ave Suite 1200, Chicago", "ADDRESS:500 W Madison Ave Suite 1200"},
		{"Send it to PO Box 1234.", "ADDRESS:PO Box 1234"},
		{"Wir sind in der Hauptstraße 12 in Berlin.", "ADDRESS:Hauptstraße 12"},
		{"au 12 rue de Rivoli à Paris", "ADDRESS:12 rue de Rivoli"},
		{"in Via Roma 15, Torino", "ADDRESS:Via Roma 15"},
		{"地址：北京市朝阳区建国路88号", "ADDRESS:北京市朝阳区建国路88号"},
		{"It took 12 hours and 3 Main ideas.", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNameContextJSON: a "name" is a person's where its object is (by
// the key above it or a key beside it only people have); a repository's,
// a tool's or a status's is not. Person keys and address keys hold their
// values whole, in any script.
func TestNameContextJSON(t *testing.T) {
	v := NewVault(mustDetector(t, Defaults()), Limits{})
	for _, tc := range []struct{ in, want string }{
		{`{"user":{"login":"jdoe","name":"Jane Doe"}}`, `{"user":{"login":"jdoe","name":"[NAME_1]"}}`},
		{`{"name":"Tendai Nkosi","email":"x"}`, `{"name":"[NAME_1]","email":"x"}`},
		{`{"name":"Tendai Nkosi","stars":3}`, `{"name":"Tendai Nkosi","stars":3}`}, // no list knows either word
		{`{"repository":{"name":"Toolfold Core","full_name":"acme/toolfold"}}`, `{"repository":{"name":"Toolfold Core","full_name":"acme/toolfold"}}`},
		{`{"assignees":[{"name":"Jane Doe"},{"name":"Wei Zhang"}]}`, `{"assignees":[{"name":"[NAME_1]"},{"name":"[NAME_2]"}]}`},
		{`{"status":{"name":"In Progress"}}`, `{"status":{"name":"In Progress"}}`},
		{`{"displayName":"박지훈","real_name":"Дмитрий Кузнецов"}`, `{"displayName":"[NAME_1]","real_name":"[NAME_2]"}`},
		{`{"firstname":"Priya","lastname":"Sharma"}`, `{"firstname":"[NAME_1]","lastname":"[NAME_2]"}`},
		{`{"from":"2026-01-01","to":"main","owner":"platform-team"}`, `{"from":"2026-01-01","to":"main","owner":"platform-team"}`},
		{`{"address":{"line1":"350 Fifth Avenue","city":"New York"}}`, `{"address":{"line1":"[ADDRESS_1]","city":"New York"}}`},
		{`{"street":"Kungsgatan 44, Stockholm"}`, `{"street":"[ADDRESS_1], Stockholm"}`},
	} {
		got, err := v.TokenizeJSON([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
		v = NewVault(mustDetector(t, Defaults()), Limits{})
	}
}

// TestNameContextTable: a cell under a person's or address column is one
// value, whole; a "Name" column is a person's where the table has an
// email or phone column.
func TestNameContextTable(t *testing.T) {
	d := mustDetector(t, Defaults())
	for _, tc := range []struct{ in, want string }{
		{"Name,Email\n陈静,x\n\"Doe, Jane\",y", "NAME:陈静 | NAME:Doe, Jane"},
		{"Name,Stars\nToolfold Core,3", ""},
		{"| Ticket | Assignee |\n|---|---|\n| OPS-1 | Ngọc Trần |", "NAME:Ngọc Trần"},
		{"first_name\tstreet\nAoife\t9 Oak Lane", "NAME:Aoife | ADDRESS:9 Oak Lane"},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNameAddressOff: pii.detectors.name and .address switch them off.
func TestNameAddressOff(t *testing.T) {
	o := Defaults()
	o.Detectors[DetName], o.Detectors[DetAddress] = false, false
	d := mustDetector(t, o)
	for _, in := range []string{"Dear Linda Johnson,", "Ship to 1600 Amphitheatre Parkway", "Name,Email\nJane Doe,x"} {
		if got := found(d, in); got != "" {
			t.Errorf("%q: got %q with name and address off", in, got)
		}
	}
	v := NewVault(d, Limits{})
	in := `{"user":{"name":"Jane Doe","email":"jane@example.org"},"address":{"line1":"9 Oak Lane"}}`
	got, err := v.TokenizeJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "[NAME_") || strings.Contains(string(got), "[ADDRESS_") {
		t.Errorf("got %s with name and address off", got)
	}
}

// TestNameJSONLinear: objects nested deep, each with a "name" and no
// person's key, are each looked at once and within a bound.
func TestNameJSONLinear(t *testing.T) {
	v := NewVault(mustDetector(t, Defaults()), Limits{})
	n := 1 << 15
	in := strings.Repeat(`{"name":"Jo Do","a":`, n) + "1" + strings.Repeat("}", n)
	if _, err := v.TokenizeJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
	in = "[" + strings.Repeat(`{"name":"Jo Do","k":"`+strings.Repeat("x", 64)+`"},`, n) + "1]"
	if _, err := v.TokenizeJSON([]byte(in)); err != nil {
		t.Fatal(err)
	}
}

// TestListsSorted: the lists are searched by bisection, so each must be
// sorted in byte order, one word a line, ending in a newline.
func TestListsSorted(t *testing.T) {
	for name, l := range map[string]string{"given": givenList, "surnames": surnameList, "words": wordList} {
		if !strings.HasSuffix(l, "\n") {
			t.Fatalf("%s: no final newline", name)
		}
		ws := strings.Split(strings.TrimSuffix(l, "\n"), "\n")
		for i := 1; i < len(ws); i++ {
			if ws[i-1] >= ws[i] {
				t.Fatalf("%s: %q before %q", name, ws[i-1], ws[i])
			}
		}
		for _, w := range []string{ws[0], ws[len(ws)/2], ws[len(ws)-1]} {
			if !inList(l, w) || inList(l, w+"zz") {
				t.Errorf("%s: inList wrong about %q", name, w)
			}
		}
	}
	if f := lexOf("Jennifer"); f&wGiven == 0 || f&wWord != 0 {
		t.Errorf("Jennifer: flags %b", f)
	}
	if f := lexOf("Müller"); f&wSurname == 0 {
		t.Errorf("Müller: flags %b, want a surname (folded to muller)", f)
	}
}

// BenchmarkLexOf measures one word's lookup in the three lists.
func BenchmarkLexOf(b *testing.B) {
	ws := []string{"Jennifer", "Deere", "Table", "Szöllössy", "Kowalski"}
	for i := 0; b.Loop(); i++ {
		lexOf(ws[i%len(ws)])
	}
}
