package index

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

func obj(props map[string]any, required ...string) map[string]any {
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		var r []any
		for _, x := range required {
			r = append(r, x)
		}
		s["required"] = r
	}
	return s
}

func prop(typ, desc string) map[string]any {
	return map[string]any{"type": typ, "description": desc}
}

// smallTools is a catalog of a few servers, for behaviours of search.
func smallTools() ([]Tool, []ServerInfo) {
	tools := []Tool{
		{Server: "filesystem", Name: "read_text_file", Description: "Read the complete contents of a file as text.",
			InputSchema: obj(map[string]any{"path": prop("string", "")}, "path")},
		{Server: "filesystem", Name: "write_file", Description: "Create a new file or overwrite an existing file.",
			InputSchema: obj(map[string]any{"path": prop("string", ""), "content": prop("string", "")}, "path", "content")},
		{Server: "filesystem", Name: "delete_file", Description: "Delete a file."},
		{Server: "filesystem", Name: "list_directory", Description: "List the entries of a directory."},
		{Server: "github", Name: "create_pull_request", Description: "Create a new pull request in a GitHub repository."},
		{Server: "github", Name: "list_issues", Description: "List issues in a GitHub repository."},
		{Server: "github", Name: "fork_repository", Description: "Fork a GitHub repository to your account."},
		{Server: "kubernetes", Name: "kubectl_logs", Description: "Get logs from pods."},
		{Server: "browser", Name: "take_screenshot", Description: "Take a screenshot of the current page."},
		{Server: "slack", Name: "post_message", Description: "Post a message to a Slack channel."},
		{Server: "jobs", Name: "getStories", Description: "Get top stories."},
	}
	servers := []ServerInfo{
		{Name: "filesystem", Available: true}, {Name: "github", Available: true},
		{Name: "kubernetes", Available: true}, {Name: "browser", Available: true},
		{Name: "slack", Available: false, Error: "connection refused"}, {Name: "jobs", Available: true},
	}
	return tools, servers
}

func TestSearchTop(t *testing.T) {
	ix := New(smallTools())
	tests := []struct{ query, want string }{
		{"read a text file", "filesystem.read_text_file"},
		{"remove a file", "filesystem.delete_file"},                  // synonym
		{"rm file", "filesystem.delete_file"},                        // abbreviation
		{"ls dir", "filesystem.list_directory"},                      // abbreviations
		{"open a PR", "github.create_pull_request"},                  // abbreviation for a phrase
		{"fork a repo", "github.fork_repository"},                    // repo → repository
		{"k8s logs", "kubernetes.kubectl_logs"},                      // k8s → kubernetes, kubectl
		{"screnshot", "browser.take_screenshot"},                     // typo
		{"creat a new fiel", "filesystem.write_file"},                // typos
		{"read_text_file", "filesystem.read_text_file"},              // identifier
		{"fs.readTextFile", "filesystem.read_text_file"},             // abbreviated identifier
		{"tools.github.list_issues", "github.list_issues"},           // script path
		{"kubectl_logs", "kubernetes.kubectl_logs"},                  // exact name
		{"getstories", "jobs.getStories"},                            // compound of a camel name
		{"send a message to the team channel", "slack.post_message"}, // unavailable still found
	}
	for _, tt := range tests {
		hits := ix.Search(tt.query, SearchOptions{})
		if len(hits) == 0 || hits[0].QName != tt.want {
			var got []string
			for _, h := range hits[:min(3, len(hits))] {
				got = append(got, fmt.Sprintf("%s %.2f", h.QName, h.Score))
			}
			t.Errorf("Search(%q) = %q, want %s first", tt.query, got, tt.want)
		}
	}
}

func TestSearchOptions(t *testing.T) {
	tools, servers := smallTools()
	for i := range 60 {
		tools = append(tools, Tool{Server: "many", Name: fmt.Sprintf("file_tool_%02d", i), Description: "Does things to a file."})
	}
	ix := New(tools, servers)
	if n := len(ix.Search("file", SearchOptions{})); n != defaultLimit {
		t.Errorf("default limit: %d hits", n)
	}
	if n := len(ix.Search("file", SearchOptions{Limit: 500})); n != maxLimit {
		t.Errorf("limit 500: %d hits, want the maximum %d", n, maxLimit)
	}
	if n := len(ix.Search("file", SearchOptions{Limit: 3})); n != 3 {
		t.Errorf("limit 3: %d hits", n)
	}
	for _, server := range []string{"filesystem"} {
		for _, h := range ix.Search("file", SearchOptions{Server: server, Limit: 50}) {
			if h.Tool.Server != "filesystem" {
				t.Errorf("server filter %q returned %s", server, h.QName)
			}
		}
	}
	if hits := ix.Search("file", SearchOptions{Server: "nope"}); len(hits) != 0 {
		t.Errorf("unknown server filter returned %d hits", len(hits))
	}
	if hits := ix.Search("zzyzx qwxv", SearchOptions{}); len(hits) != 0 {
		t.Errorf("nonsense query returned %v", hits[0].QName)
	}
	var listed []string
	for _, h := range ix.Search("", SearchOptions{Server: "github"}) {
		listed = append(listed, h.QName)
	}
	want := []string{"github.create_pull_request", "github.fork_repository", "github.list_issues"}
	if !gocmp.Equal(listed, want) {
		t.Errorf("empty query with a server lists %q, want %q", listed, want)
	}
	hits := ix.Search("read a file", SearchOptions{})
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("hits not sorted by score: %v", hits)
		}
	}
}

func TestSearchServerIdent(t *testing.T) {
	ix := New([]Tool{
		{Server: "google-maps", Name: "geocode", Description: "Geocode an address."},
		{Server: "osm", Name: "geocode", Description: "Geocode an address."},
	}, nil)
	hits := ix.Search("geocode", SearchOptions{Server: "google_maps"})
	if len(hits) != 1 || hits[0].QName != "google-maps.geocode" {
		t.Errorf("server filter by identifier: %v", hits)
	}
}

func TestSearchConcurrent(t *testing.T) {
	ix := New(smallTools())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 50 {
				q := []string{"read a file", "open a PR", "screnshot", "read_text_file", ""}[(i+j)%5]
				ix.Search(q, SearchOptions{Limit: 5})
			}
		})
	}
	wg.Wait()
}

func TestSuggest(t *testing.T) {
	ix := New(smallTools())
	tests := []struct {
		name string
		want string // first suggestion
	}{
		{"filesystem.read_txt_file", "filesystem.read_text_file"},   // typo
		{"filesytem.read_text_file", "filesystem.read_text_file"},   // typo in the server
		{"github.read_text_file", "filesystem.read_text_file"},      // wrong server
		{"read_text_file", "filesystem.read_text_file"},             // no server
		{"filesystem.read-text-file", "filesystem.read_text_file"},  // - for _
		{"tools.kubernetes.kubectl_log", "kubernetes.kubectl_logs"}, // script path with a typo
		{"github.open_pr", "github.create_pull_request"},            // by meaning
	}
	for _, tt := range tests {
		got := ix.Suggest(tt.name, 3)
		if len(got) == 0 || got[0] != tt.want {
			t.Errorf("Suggest(%q) = %q, want %s first", tt.name, got, tt.want)
		}
		if len(got) > 3 {
			t.Errorf("Suggest(%q, 3) returned %d names", tt.name, len(got))
		}
	}
	if got := ix.Suggest("x", 0); got != nil {
		t.Errorf("Suggest with n=0 = %q", got)
	}
}

func FuzzSearch(f *testing.F) {
	ix := New(smallTools())
	for _, s := range []string{"read a file", "fs.readFile", "'quoted", "content: x", "https://a.b/c", "获取", "\x00", "tools."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		hits := ix.Search(q, SearchOptions{Limit: 5})
		if len(hits) > 5 {
			t.Fatalf("%d hits", len(hits))
		}
		ix.Render(q, hits, DetailSummary, "lua")
		ix.Suggest(q, 3)
	})
}

func TestTopK(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, k := range []int{0, 1, 3, 10, 100} {
		var all []candidate
		top := topK{k: k}
		for i := range 200 {
			c := candidate{doc: int32(i), score: float64(r.IntN(20))} // many ties
			all = append(all, c)
			top.push(c)
		}
		slices.SortFunc(all, func(a, b candidate) int {
			if c := cmp.Compare(b.score, a.score); c != 0 {
				return c
			}
			return cmp.Compare(a.doc, b.doc)
		})
		if got, want := top.sorted(), all[:min(k, len(all))]; !slices.Equal(got, want) {
			t.Errorf("k=%d: top %v, want %v", k, got, want)
		}
	}
}

// TestNumberNamingAServer: a number that is a server's or tool's name is a
// word of the query, not a quantity.
func TestNumberNamingAServer(t *testing.T) {
	ix := New([]Tool{
		{Server: "12306", Name: "get-tickets", Description: "Query train seats left on a date."},
		{Server: "github", Name: "get_issue", Description: "Get ticket details of an issue."},
		{Server: "calc", Name: "calculate", Description: "Evaluate a math expression."},
	}, nil)
	if hits := ix.Search("check 12306 remaining ticket information", SearchOptions{}); len(hits) == 0 || hits[0].Tool.Server != "12306" {
		t.Errorf("12306 query: %v", hits)
	}
	if hits := ix.Search("what is 12 + 30", SearchOptions{}); len(hits) == 0 || hits[0].Tool.Name != "calculate" {
		t.Errorf("arithmetic: %v", hits)
	}
}

// TestTypoOfAWordAsWritten: a typo is compared with the catalog's words as
// written, not only with their stems ("documentaion" is one edit from
// "documentation", four from its stem "document").
func TestTypoOfAWordAsWritten(t *testing.T) {
	ix := New([]Tool{
		{Server: "docs", Name: "query_docs", Description: "Query the documentation of a library."},
		{Server: "browser", Name: "navigate", Description: "Navigate to a URL."},
		{Server: "browser", Name: "click", Description: "Click an element on the page."},
	}, []ServerInfo{{Name: "docs", Available: true}, {Name: "browser", Available: true}})
	for _, tt := range []struct{ query, want string }{
		{"documentaion", "docs.query_docs"},
		{"naviagte", "browser.navigate"},
		{"naviagte to a url", "browser.navigate"},
	} {
		hits := ix.Search(tt.query, SearchOptions{})
		if len(hits) == 0 || hits[0].QName != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, hits, tt.want)
		}
	}
}
