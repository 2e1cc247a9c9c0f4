package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pendingPages are pages other branches add; links to them are allowed
// before they exist. The lead removes this list once they are merged.
var pendingPages = []string{}

var (
	fence      = regexp.MustCompile("(?m)^```")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading    = regexp.MustCompile(`^(#{1,6}) (.+)$`)
)

// documents returns README.md and docs/*.md, as paths from the repository root.
func documents(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{"README.md"}
	for _, p := range pages {
		docs = append(docs, "docs/"+p)
	}
	return docs
}

// read returns a document's text, from the repository root.
func read(t *testing.T, doc string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", doc))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// prose returns the lines of text outside fenced code blocks.
func prose(text string) []string {
	var out []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if fence.MatchString(l) {
			in = !in
			continue
		}
		if !in {
			out = append(out, l)
		}
	}
	return out
}

// slug is the anchor GitHub gives a heading.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	var b strings.Builder
	for _, r := range h {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors returns the anchors of a document's headings, with GitHub's -1,
// -2 suffixes for repeated ones.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range prose(text) {
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := slug(m[2])
		for i := 1; out[a]; i++ {
			a = fmt.Sprintf("%s-%d", slug(m[2]), i)
		}
		out[a] = true
	}
	return out
}

// TestLinksResolve checks every relative link of README.md and docs/*.md:
// the file it names exists, and so does the heading its #anchor names.
func TestLinksResolve(t *testing.T) {
	for _, doc := range documents(t) {
		text := read(t, doc)
		for _, l := range prose(text) {
			for _, m := range mdLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(l, ""), -1) {
				if err := checkLink(t, doc, text, m[1]); err != "" {
					t.Errorf("%s: link %s: %s", doc, m[1], err)
				}
			}
		}
	}
}

// checkLink returns what is wrong with target, linked from doc, or "".
func checkLink(t *testing.T, doc, text, target string) string {
	t.Helper()
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return ""
	}
	file, anchor, _ := strings.Cut(target, "#")
	path := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(doc), file)))
	if file == "" {
		path = doc
	}
	if slices.Contains(pendingPages, path) {
		return ""
	}
	data, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		if info, serr := os.Stat(filepath.Join("..", path)); serr == nil && info.IsDir() && anchor == "" {
			return ""
		}
		return "no such file " + path
	}
	if anchor == "" {
		return ""
	}
	if file != "" {
		text = string(data)
	}
	if !strings.HasSuffix(path, ".md") || !anchors(text)[anchor] {
		return "no heading with anchor #" + anchor + " in " + path
	}
	return ""
}

var contentsBlock = regexp.MustCompile(`(?s)<!-- contents -->\n(.*?)<!-- /contents -->`)

// TestPagesHaveContents checks that every docs page has a table of contents
// before its first section, listing its sections (## headings) in order.
func TestPagesHaveContents(t *testing.T) {
	for _, doc := range documents(t)[1:] {
		text := read(t, doc)
		m := contentsBlock.FindStringSubmatchIndex(text)
		first := strings.Index(text, "\n## ")
		if m == nil || first >= 0 && m[0] > first {
			t.Errorf("%s: no table of contents (<!-- contents --> … <!-- /contents -->) before its first section", doc)
			continue
		}
		var want []string
		for _, l := range prose(text) {
			if h := heading.FindStringSubmatch(l); h != nil && h[1] == "##" {
				want = append(want, fmt.Sprintf("- [%s](#%s)", h[2], slug(h[2])))
			}
		}
		var got []string
		for _, l := range strings.Split(text[m[2]:m[3]], "\n") {
			if strings.HasPrefix(l, "- ") {
				got = append(got, l)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: its contents list\n%s\nbut its sections are\n%s", doc, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
