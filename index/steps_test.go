package index

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitSteps(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"find the file and then email it to Bob", []string{"find the file", "email it to Bob"}},
		{"list open issues, then close the stale ones", []string{"list open issues,", "close the stale ones"}},
		{"geocode the address; find parking nearby", []string{"geocode the address", "find parking nearby"}},
		{"read a text file", []string{"read a text file"}},
		{"files and folders", []string{"files and folders"}},                       // a part of one word is no step
		{`search for "salt and pepper"`, []string{`search for "salt and pepper"`}}, // quoted text is not split
		{"write a note with the text: buy milk and then eggs", []string{"write a note with the text: buy milk and then eggs"}},
		{"Take a screenshot AND then upload it somewhere", []string{"Take a screenshot", "upload it somewhere"}},
		{"find the report, send it to Bob", []string{"find the report", "send it to Bob"}},     // a comma before a verb
		{"list the files, folders too please", []string{"list the files, folders too please"}}, // not before a verb
	} {
		if got := splitSteps(tc.q); !cmp.Equal(got, tc.want) {
			t.Errorf("splitSteps(%q) = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestTwoStepsBothSurface: a query naming two steps finds each step's tool
// in the first five, though a tool that matches words of both steps
// would otherwise crowd them out.
func TestTwoStepsBothSurface(t *testing.T) {
	var tools []Tool
	add := func(name, desc string) { tools = append(tools, Tool{Server: "s", Name: name, Description: desc}) }
	add("find_files", "Find files by name pattern in a directory.")
	add("send_email", "Send an email message to recipients.")
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		add("email_file_"+n, "Find the settings of an email file, variant "+n+".")
	}
	ix := New(tools, nil)
	var top []string
	for _, h := range ix.Search("find the file and then send it by email", SearchOptions{Limit: 5}) {
		top = append(top, h.Tool.Name)
	}
	for _, want := range []string{"find_files", "send_email"} {
		if !slices.Contains(top, want) {
			t.Errorf("top 5 %q lacks %s", top, want)
		}
	}
}

// TestUnsureStepNotPromoted: a step that no tool matches well ("improve
// my mood" matches one parameter description) does not push its best guess
// into the first three hits, above tools of the step that names a tool.
func TestUnsureStepNotPromoted(t *testing.T) {
	ix := New([]Tool{
		{Server: "s", Name: "list_issues", Description: "List open issues."},
		{Server: "s", Name: "list_issues_by_label", Description: "List open issues with a label."},
		{Server: "s", Name: "list_issue_comments", Description: "List the comments of an issue."},
		{Server: "s", Name: "list_closed_issues", Description: "List closed issues."},
		{Server: "s", Name: "list_issue_events", Description: "List the events of an issue."},
		{Server: "s", Name: "set_color", Description: "Set the lamp's color.",
			InputSchema: obj(map[string]any{"color": prop("string", "A color that suits the mood.")})},
	}, nil)
	hits := ix.Search("list the open issues and then improve my mood", SearchOptions{Limit: 5})
	var top []string
	for _, h := range hits {
		top = append(top, h.Tool.Name)
	}
	if i := slices.Index(top, "set_color"); i >= 0 && i < 3 {
		t.Errorf("hits %q: an unsure step's guess ranks %d", top, i+1)
	}
}
