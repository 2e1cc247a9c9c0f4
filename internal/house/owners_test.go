package house

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// sourceFiles parses every non-test Go file of the module outside skip
// (directories relative to root, slash separated), testdata and
// third_party (copies of other projects' code), and calls f with each
// file's path relative to root.
func sourceFiles(t *testing.T, skip []string, f func(rel string, file *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			for _, s := range skip {
				if rel == s {
					return filepath.SkipDir
				}
			}
			if path != root && (d.Name() == "testdata" || d.Name() == "third_party" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		f(rel, file)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// calls is the set of pkg.Func selectors called in n ("os.Rename").
func calls(n ast.Node) map[string]bool {
	m := map[string]bool{}
	ast.Inspect(n, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if s, ok := c.Fun.(*ast.SelectorExpr); ok {
				if id, ok := s.X.(*ast.Ident); ok {
					m[id.Name+"."+s.Sel.Name] = true
				}
			}
		}
		return true
	})
	return m
}

// TestAtomicWriteOnlyInHelper: a file is replaced atomically only through
// internal/atomicfile. A function that writes a file (os.CreateTemp,
// os.WriteFile) and renames it into place is a second copy of the helper;
// a folder built under os.MkdirTemp and renamed whole (a skill) is not.
func TestAtomicWriteOnlyInHelper(t *testing.T) {
	sourceFiles(t, []string{"internal/atomicfile", "internal/phonenumbers"}, func(rel string, file *ast.File) {
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			c := calls(fn.Body)
			if c["os.Rename"] && (c["os.CreateTemp"] || c["os.WriteFile"]) && !c["os.MkdirTemp"] {
				t.Errorf("%s: %s writes a file and renames it into place: use atomicfile.Write (internal/atomicfile)", rel, fn.Name.Name)
			}
		}
	})
}

// TestOwnershipCheckOnlyInHelper: whether a file is toolfold's own is
// decided only by internal/fsown. Code elsewhere that reads a file's owner
// (a Stat_t's Uid, or syscall.Stat_t off FileInfo.Sys) is a second copy
// of the check. Stat_t used for device and inode numbers (the sandbox's
// mounts) is not an ownership check, nor is setting a Credential's Uid.
func TestOwnershipCheckOnlyInHelper(t *testing.T) {
	sourceFiles(t, []string{"internal/fsown", "internal/phonenumbers"}, func(rel string, file *ast.File) {
		ast.Inspect(file, func(n ast.Node) bool {
			s, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, _ := s.X.(*ast.Ident)
			if s.Sel.Name == "Uid" || (s.Sel.Name == "Stat_t" && id != nil && id.Name == "syscall") {
				t.Errorf("%s: reads a file's owner (%s): use fsown.Check (internal/fsown)", rel, s.Sel.Name)
			}
			return true
		})
	})
}

// TestLogWalkOnlyInHelper: a slog.Handler that wraps another and changes
// what passes (a redaction) is built on internal/slogwalk, which walks a
// record's message, attributes and groups once for all of them. A
// WithAttrs method that hands attributes on to a next handler's WithAttrs
// is a second copy of that walk.
func TestLogWalkOnlyInHelper(t *testing.T) {
	sourceFiles(t, []string{"internal/slogwalk", "internal/phonenumbers"}, func(rel string, file *ast.File) {
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "WithAttrs" || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "WithAttrs" {
						t.Errorf("%s: a slog.Handler wraps another by hand: build it with slogwalk.New (internal/slogwalk)", rel)
						return false
					}
				}
				return true
			})
		}
	})
}

// minDupStatements is the size from which two functions with the same
// body are one thing written twice (smaller ones, a three-line set
// builder, may stay where they are used).
const minDupStatements = 4

// TestNoCopiedFunctions: no two functions of the module have the same body
// (of at least minDupStatements statements): the second is a copy of the
// first, and the copies drift apart. Call, or export, the first. The PII
// set generators (rewrite/internal), commands run once by hand, are left
// out.
func TestNoCopiedFunctions(t *testing.T) {
	seen := map[string]string{}
	fset := token.NewFileSet()
	sourceFiles(t, []string{"internal/phonenumbers", "rewrite/internal"}, func(rel string, file *ast.File) {
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil || len(fn.Body.List) < minDupStatements {
				continue
			}
			var b bytes.Buffer
			printer.Fprint(&b, fset, fn.Body)
			here := rel + ": " + fn.Name.Name
			if first, ok := seen[b.String()]; ok {
				t.Errorf("%s is a copy of %s: call or export the one", here, first)
				continue
			}
			seen[b.String()] = here
		}
	})
}
