package index

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"read_text_file", []string{"read", "text", "file"}},
		{"get-current-date", []string{"get", "current", "date"}},
		{"getFileInfo", []string{"get", "file", "info"}},
		{"HTMLParser", []string{"html", "parser"}},
		{"parseHTML", []string{"parse", "html"}},
		{"v2Api", []string{"v2", "api"}},
		{"list URLs", []string{"list", "urls"}},
		{"fs.readFile", []string{"fs", "read", "file"}},
		{"github.create_issue", []string{"github", "create", "issue"}},
		{"API-post-search", []string{"api", "post", "search"}},
		{"ms365 3G", []string{"ms365", "3g"}},
		{"OAuth2Token", []string{"o", "auth2", "token"}},
		{"  Read the file. ", []string{"read", "the", "file"}},
		{"café crème", []string{"café", "crème"}},
		{"获取车票", []string{"获取", "取车", "车票"}},
		{"查询12306车票", []string{"查询", "12306", "车票"}},
		{"", nil},
		{"--- ...", nil},
	}
	for _, tt := range tests {
		if got := words(tt.in); !cmp.Equal(got, tt.want) {
			t.Errorf("words(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestWordsCompounds(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"GitHub", []string{"git", "hub", "github"}},
		{"getStories", []string{"get", "stories", "getstories"}},
		{"github", []string{"github"}},
		{"read_file", []string{"read", "file"}},
	}
	for _, tt := range tests {
		if got := appendWords(nil, tt.in, true); !cmp.Equal(got, tt.want) {
			t.Errorf("appendWords(%q, compounds) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := terms("Creates a new Directory with the given paths")
	want := []string{"creat", "new", "directori", "given", "path"}
	if !cmp.Equal(got, want) {
		t.Errorf("terms = %q, want %q", got, want)
	}
}

func TestStem(t *testing.T) {
	// Porter's own examples, then tool vocabulary.
	tests := map[string]string{
		"caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
		"feed": "feed", "agreed": "agre", "plastered": "plaster", "motoring": "motor", "sing": "sing",
		"conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop",
		"falling": "fall", "hissing": "hiss", "filing": "file", "happy": "happi",
		"relational": "relat", "conditional": "condit", "generalization": "gener",
		"connection": "connect", "connected": "connect", "connecting": "connect",
		"directories": "directori", "directory": "directori",
		"creating": "creat", "created": "creat", "creates": "creat", "creation": "creation",
		"files": "file", "listing": "list", "repositories": "repositori",
		// Exceptions and words left alone.
		"news": "news", "settings": "setting", "setting": "setting", "https": "http",
		"ids": "ids", "ios": "ios", "aws": "aws", "k8s": "k8s", "ms365": "ms365", "获取": "获取",
	}
	for in, want := range tests {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFirstSentence(t *testing.T) {
	tests := []struct{ in, first, rest string }{
		{"Read a file. Handles encodings.", "Read a file.", "Handles encodings."},
		{"Read a file", "Read a file", ""},
		{"Use e.g. a path. Then more.", "Use e.g. a path.", "Then more."},
		{"Version 1.2 of the API. More.", "Version 1.2 of the API.", "More."},
		{"Lists items\n\nArgs: x", "Lists items", "Args: x"},
		{"Lists items\n- one\n- two", "Lists items", "- one\n- two"},
		{"获取车票。更多信息", "获取车票。", "更多信息"},
		{"  ", "", ""},
	}
	for _, tt := range tests {
		first, rest := firstSentence(tt.in)
		if first != tt.first || rest != tt.rest {
			t.Errorf("firstSentence(%q) = %q, %q; want %q, %q", tt.in, first, rest, tt.first, tt.rest)
		}
	}
}

func TestValueKind(t *testing.T) {
	tests := map[string]string{
		"https://example.com/x": "url", "www.baidu.com": "url", "bbc.co.uk": "url", "example.org,": "url",
		"./src/main.py": "path", "/usr/local/tests": "path", "~/notes": "path", "a/b/c": "path",
		"README.md": "file", "settings.yaml": "file",
		"user@example.com": "email",
		".login-btn":       "selector", "#deck": "selector",
		"'Sample text'": "quoted", `"x y"`: "quoted",
		"2,340": "number", "17%": "number", "42": "number",
		"read_file": "", "fs.readFile": "", "GitHub": "", "e.g.": "", "hello.": "",
	}
	for in, want := range tests {
		if got := valueKind(in); got != want {
			t.Errorf("valueKind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSplitQuery(t *testing.T) {
	got := splitQuery(`replace 'Sample text' with "Example text" now`)
	want := []string{"replace", "'Sample text'", "with", `"Example text"`, "now"}
	if !cmp.Equal(got, want) {
		t.Errorf("splitQuery = %q, want %q", got, want)
	}
}

// conceptsOf summarises parsed concepts as "word(weight): alternatives".
func conceptsOf(cs []concept) []string {
	var out []string
	for _, c := range cs {
		var alts []string
		for _, a := range c.alts[1:] {
			alts = append(alts, strings.Join(a.terms, " "))
		}
		out = append(out, strings.Join(c.alts[0].terms, " ")+"|"+strings.Join(alts, ","))
	}
	return out
}

func TestParseQuery(t *testing.T) {
	ix := New([]Tool{
		{Server: "fs", Name: "delete_file", Description: "Delete a file at a path."},
		{Server: "gh", Name: "create_pull_request", Description: "Open a pull request."},
		{Server: "web", Name: "fetch", Description: "Fetch a URL.", InputSchema: map[string]any{
			"properties": map[string]any{"url": map[string]any{"type": "string"}}}},
	}, nil)
	has := func(cs []concept, word, alt string) bool {
		for _, c := range cs {
			if strings.Join(c.alts[0].terms, " ") != word {
				continue
			}
			for _, a := range c.alts {
				if strings.Join(a.terms, " ") == alt {
					return true
				}
			}
		}
		return false
	}
	tests := []struct {
		query, word, alt string
	}{
		{"remove a file", "remov", "delet"},           // synonym
		{"rm the file", "rm", "delet"},                // abbreviation
		{"open a PR", "pr", "pull request"},           // abbreviation to phrase
		{"open a pull request", "pull request", "pr"}, // phrase to abbreviation
		{"delte the file", "delt", "delet"},           // typo
		{"fetchurl", "fetchurl", "fetch url"},         // compound
		{"fetch https://example.com/page", "url", "url"},
		{"GitHub", "github", "git hub"},               // camel case: whole, or parts
		{"the page is slow", "slow", "perform"},       // everyday word → tool word
		{"a GPL dependency", "gpl", "licens"},         // licence names
		{"let the team know", "notifi", "messag"},     // idiom, then its synonyms
		{"throw the old file away", "delet", "remov"}, // separable phrasal verb
		{"what is 3*4", "calcul", "calcul"},           // arithmetic hints at calculating
		{"block off an hour tomorrow", "tomorrow", "calendar"},
	}
	for _, tt := range tests {
		cs, _ := ix.lex.parseQuery(tt.query)
		if !has(cs, tt.word, tt.alt) {
			t.Errorf("parseQuery(%q) = %q: want %q matching %q", tt.query, conceptsOf(cs), tt.word, tt.alt)
		}
	}
	// Words of literal values and payloads weigh less.
	cs, _ := ix.lex.parseQuery("write to ./docs/notes.md the content: hello")
	for _, c := range cs {
		w := strings.Join(c.alts[0].terms, " ")
		if (w == "doc" || w == "note" || w == "hello") && c.weight >= 1 {
			t.Errorf("value word %q has weight %v", w, c.weight)
		}
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"getFileInfo", "HTMLParser URLs", "获取车票", "a\xffb", "fs.readFile 'x'", "ÉCOLE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range appendWords(nil, s, true) {
			if w == "" || !utf8.ValidString(w) && utf8.ValidString(s) {
				t.Fatalf("words(%q) yields %q", s, w)
			}
		}
		stem(strings.ToLower(s))
		firstSentence(s)
	})
}
