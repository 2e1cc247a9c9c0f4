package rewrite

import (
	"strings"
	"testing"
)

// TestTableColumnContext: a number in a table column whose header is a
// phone (or SSN, card) word has that word as context, in CSV, TSV and
// Markdown tables; other columns, the header row itself and prose with
// commas do not.
func TestTableColumnContext(t *testing.T) {
	o := Defaults()
	o.Detectors[DetName], o.Detectors[DetAddress] = false, false // names have their own tests
	d := mustDetector(t, o)
	for _, tc := range []struct{ in, want string }{
		{"Name,Phone,City\nJane Roe,0612345678,Paris\nJohn Poe,612 34 56 78,Madrid", "PHONE:0612345678 | PHONE:612 34 56 78"},
		{"| Name | Mobile number | City |\n|---|---|---|\n| Jane | 85 75 12 34 | Oslo |\n| John | 0612345678 | Paris |", "PHONE:85 75 12 34 | PHONE:0612345678"},
		{"name\ttel\nJane\t51234", "PHONE:51234"},                                             // a short number, as after "Tel:"
		{"name,ssn\nJane,536221234", "US_SSN:536221234"},                                      // compact SSN under its header
		{"Name,Order,City\nJane Roe,0612345678,Paris", ""},                                    // another column's header
		{"Name,City,Phone\nA,B,C\nD,E,F\nJane Roe,0612345678,Paris", ""},                      // the phone column is another
		{"Phone,Name\n0612345678,Jane\nnote: 0612345678 later", "PHONE:0612345678"},           // the block ends
		{"Phone,x\nA,B\n0612345678,Hometown of the person,Jane", ""},                          // more cells than the rows above
		{"Phone: call later, or not\nwe went home, then\nwe paid 12 34 56 78, then left", ""}, // prose, not a table
		// Quoted commas are no separators, and a '|' in a cell of a CSV
		// row is no Markdown.
		{"Name,Phone,City\n\"Doe, Jane\",x,Paris\nBob Stone,x,Lyon\nAnn Marie Lee,0612345670,Nice", "PHONE:0612345670"},
		{"Name,Phone,City\na,b,c\nd,e,f\nA|B Ltd,0612345670,Nice", "PHONE:0612345670"},
		// Prose whose first clause is a phone word is no header.
		{"Mobile, we said, is the future of everything we build here\nThe invoice 12 34 56 78, paid, is late", ""},
		{"The SSN, if known, goes in the form that the clerk keeps at the desk\nRef 536221234 filed, then, done", ""},
		// A header too far up to be sure of is none; a row is no header.
		{"id,value\nn,mobile\n" + strings.Repeat("a,b\n", 255) + "z,0612345678", ""},
	} {
		if got := found(d, tc.in); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	// A table of many rows finds every row's header once, walking back
	// only over rows not yet seen.
	var b strings.Builder
	b.WriteString("name,phone\n")
	for range 2000 {
		b.WriteString("x,612 34 56 78\n")
	}
	spans := d.Find(b.String(), nil)
	if len(spans) != 2000 {
		t.Errorf("rows of a long table: %d numbers found, want 2000", len(spans))
	}
}
