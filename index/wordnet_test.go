package index

import (
	"slices"
	"testing"
)

func TestRelated(t *testing.T) {
	for _, c := range []struct{ word, rel string }{
		{"link", "connect"},   // synonyms of one sense
		{"relat", "associ"},   // stems in and out
		{"rememb", "recal"},   // a verb's synonym
		{"relat", "relat"},    // never itself: absent below
		{"storag", "store"},   // derived words
		{"rememb", "remembr"}, // "remembrance"
	} {
		got := related(c.word)
		if c.word == c.rel {
			if slices.Contains(got, c.rel) {
				t.Errorf("related(%q) holds the word itself", c.word)
			}
			continue
		}
		if !slices.Contains(got, c.rel) {
			t.Errorf("related(%q) = %q, want it to hold %q", c.word, got, c.rel)
		}
	}
	if got := related("get"); slices.Contains(got, stem("beget")) {
		t.Errorf("related(get) keeps a rare sense: %q", got)
	}
}

// TestSearchRelated: a tool that says a word WordNet relates to a query
// word ranks above tools that match only the rest of the query, and a tool
// that says the query's own word still ranks first.
func TestSearchRelated(t *testing.T) {
	ix := New([]Tool{
		{Server: "kg", Name: "connect_nodes", Description: "Connect two nodes of the graph."},
		{Server: "kg", Name: "add_nodes", Description: "Add nodes to the graph."},
		{Server: "kg", Name: "delete_nodes", Description: "Delete nodes of the graph."},
		{Server: "kg", Name: "list_nodes", Description: "List the nodes of the graph."},
		{Server: "web", Name: "get_links", Description: "Get the links of a page."},
	}, nil)
	got := names(ix.Search("link the nodes", SearchOptions{}))
	if i, j := slices.Index(got, "kg.connect_nodes"), slices.Index(got, "kg.add_nodes"); i < 0 || i > j {
		t.Errorf("link the nodes: %q, want kg.connect_nodes above the other nodes tools", got)
	}
	if got := names(ix.Search("page links", SearchOptions{})); len(got) == 0 || got[0] != "web.get_links" {
		t.Errorf("page links: %q, want web.get_links first", got)
	}
}

func names(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.QName
	}
	return out
}
