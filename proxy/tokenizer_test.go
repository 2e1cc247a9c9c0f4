package proxy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// vaultReads are the methods of rewrite.Vault that mint no token: they
// restore, describe or count. Every other method of a Vault tokenizes (a
// new one counts as tokenizing until it is listed here).
var vaultReads = []string{"Detokenize", "DetokenizeArgs", "DetokenizeJSON", "DetokenizeValue",
	"TokensIn", "Describe", "From", "Origin", "Len", "LogValue", "String"}

// TestTokenizingOnlyInTokenizer: tokenizer.go is the only file of the
// package that calls (or takes as a value) a method of rewrite.Vault that
// mints tokens. A new path toward the client gets its method there, so
// that the tokenizer's list of paths stays the whole list.
func TestTokenizingOnlyInTokenizer(t *testing.T) {
	minting := vaultMinting(t)
	if !slices.Contains(minting, "Tokenize") || !slices.Contains(minting, "ScanOutput") {
		t.Fatalf("the scan of package rewrite found no Tokenize or ScanOutput among %v", minting)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var stray []string
	for _, f := range files {
		if f == "tokenizer.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stray = append(stray, tokenizingIn(t, f, src, minting)...)
	}
	if len(stray) > 0 {
		t.Errorf("tokenizing outside tokenizer.go (give the path its method there and call that):\n%s", strings.Join(stray, "\n"))
	}
}

// TestTokenizingScanFindsAStrayCall: the scan above sees a stray call, a
// method value, and not a field of the same name being set.
func TestTokenizingScanFindsAStrayCall(t *testing.T) {
	src := `package proxy
func stray(v *rewrite.Vault, s *Session, wo *codeapi.WriteOptions) {
	_ = v.From("x").Tokenize("ann@example.com")
	f := s.vault.ScanOutput
	wo.Tokenize = f
	_ = v.Detokenize("[EMAIL_1]")
}`
	got := tokenizingIn(t, "stray.go", []byte(src), vaultMinting(t))
	want := []string{"stray.go:3:18: Tokenize", "stray.go:4:15: ScanOutput"}
	if !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}

// vaultMinting lists the exported methods of rewrite.Vault that mint
// tokens: all but vaultReads.
func vaultMinting(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../rewrite/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || !fd.Name.IsExported() || slices.Contains(vaultReads, fd.Name.Name) {
				continue
			}
			if star, ok := fd.Recv.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Vault" {
					out = append(out, fd.Name.Name)
				}
			}
		}
	}
	return out
}

// tokenizingIn lists the places in src that call or take a minting method
// (file:line:col: name); a selector set by an assignment is a field.
func tokenizingIn(t *testing.T, name string, src []byte, minting []string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	set := map[*ast.SelectorExpr]bool{}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				if sel, ok := l.(*ast.SelectorExpr); ok {
					set[sel] = true
				}
			}
		case *ast.SelectorExpr:
			if !set[n] && slices.Contains(minting, n.Sel.Name) {
				out = append(out, fset.Position(n.Sel.Pos()).String()+": "+n.Sel.Name)
			}
		}
		return true
	})
	return out
}
