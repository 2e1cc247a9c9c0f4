package proxy

import (
	"sort"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// purpose is the few words that say what an upstream is for, in the
// advertised descriptions: the configured description, else the words its
// tool names use most ("file, directory, media" for server-filesystem),
// which is what a model would guess from the tool list it no longer sees.
func purpose(s ProvidedServer) string {
	if s.Description != "" {
		return s.Description
	}
	return nameKeywords(s.Tools, 3)
}

// genericWords are verbs and fillers shared by tools of every kind; they
// say nothing about a server's domain.
var genericWords = map[string]bool{
	"get": true, "set": true, "list": true, "create": true, "update": true, "delete": true,
	"add": true, "remove": true, "read": true, "write": true, "search": true, "find": true,
	"run": true, "do": true, "make": true, "new": true, "edit": true, "move": true, "start": true,
	"stop": true, "by": true, "to": true, "the": true, "of": true, "for": true, "and": true,
	"all": true, "info": true, "multiple": true, "tool": true, "with": true, "from": true, "in": true,
}

// nameKeywords returns up to n words that tool names use most, ties broken
// by first appearance.
func nameKeywords(tools []*mcp.Tool, n int) string {
	count := map[string]int{}
	first := map[string]int{}
	for _, t := range tools {
		for _, w := range splitName(t.Name) {
			if len(w) < 3 || genericWords[w] {
				continue
			}
			w = singular(w)
			if _, ok := first[w]; !ok {
				first[w] = len(first)
			}
			count[w]++
		}
	}
	words := make([]string, 0, len(count))
	for w := range count {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		if count[words[i]] != count[words[j]] {
			return count[words[i]] > count[words[j]]
		}
		return first[words[i]] < first[words[j]]
	})
	if len(words) > n {
		words = words[:n]
	}
	return strings.Join(words, ", ")
}

// splitName splits snake_case, kebab-case, dotted and camelCase names into
// lower-case words.
func splitName(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prev := rune(0)
	for _, r := range name {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return words
}

// singular undoes the common English plurals: entities → entity,
// files → file (but not class → clas).
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}
