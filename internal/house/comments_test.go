package house

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// lowerCamel finds words a comment may use to name unexported Go code:
// sessionMiddleware, newVault.
var lowerCamel = regexp.MustCompile(`\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b`)

// notGo are lowerCamel words comments use that name no Go code: fields of
// MCP and JSON messages, keys of clients' config files, examples.
var notGo = strings.Fields(`globalThis createEntities clientInfo destructiveHint idempotentHint inputRequests inputSchema isError
	openWorldHint outputSchema readOnlyHint structuredContent
	mcpServers httpUrl serverUrl workspaceFolder workspaceFolderBasename userHome pathSeparator
	camelCase getFile getFileInfo readFile v2Api firstName mobileNumber phoneNumber setInterval
	gRPC macOS nDCG eyJ xAI u00XX zA`)

// TestCommentsNameCode: a lowerCamel word in a comment (how comments here
// name unexported code: "see sessionMiddleware") names an identifier that
// exists somewhere in the module. A comment naming a function that was
// renamed or removed misleads the next reader; fix the comment, or add a
// word that is not Go to notGo.
func TestCommentsNameCode(t *testing.T) {
	idents := map[string]bool{}
	type mention struct{ rel, word string }
	var mentions []mention
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || d.Name() == "phonenumbers" || d.Name() == "third_party" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				idents[id.Name] = true
			}
			return true
		})
		if !strings.HasSuffix(path, "_test.go") {
			rel, _ := filepath.Rel(root, path)
			for _, cg := range f.Comments {
				for _, w := range lowerCamel.FindAllString(cg.Text(), -1) {
					mentions = append(mentions, mention{filepath.ToSlash(rel), w})
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mentions {
		if !idents[m.word] && !slices.Contains(notGo, m.word) {
			t.Errorf("%s: a comment names %s, which no Go code declares or uses: correct the comment", m.rel, m.word)
		}
	}
}
