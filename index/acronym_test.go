package index

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAcronymsLearned(t *testing.T) {
	tools := []Tool{
		{Server: "gh", Name: "create_pull_request", Description: "Open a new pull request."},
		{Server: "gh", Name: "create_feature_flag", Description: "Add a new feature flag."},
		{Server: "gh", Name: "list_feature_flags", Description: "List feature flags of a project."},
		{Server: "gh", Name: "list_pull_requests", Description: "List pull requests of a repository."},
		{Server: "gh", Name: "get_weather", Description: "Get the weather."},
		{Server: "gh", Name: "list_branches", Description: "List branches."},
		{Server: "net", Name: "whois_as", Description: "Look up an Autonomous System Number (ASN) and its owner."},
		{Server: "net", Name: "ping", Description: "Ping a host (see RFC 792). The CEO knows."},
	}
	ix := New(tools, nil)
	for a, want := range map[string][][]string{
		"pr":  {{"pull", "request"}},             // two tools' names
		"asn": {{"autonom", "system", "number"}}, // defined in a description
		"gw":  nil,                               // one tool's name only
		"rfc": nil,                               // no phrase next to it
		"ceo": nil,                               // "The CEO knows": no phrase spells it
	} {
		if got := ix.lex.acronyms[a]; !cmp.Equal(got, want) {
			t.Errorf("acronyms[%q] = %q, want %q", a, got, want)
		}
	}
	hits := ix.Search("show the FFs", SearchOptions{Limit: 3}) // "ff" is in no word table
	if len(hits) == 0 || hits[0].QName != "gh.list_feature_flags" {
		t.Errorf("show the FFs: %v, want gh.list_feature_flags first", names(hits))
	}
}
