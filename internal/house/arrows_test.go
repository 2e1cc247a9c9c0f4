package house

import (
	"bufio"
	"bytes"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Arrow bounds for the proxy package, the hub. An arrow is one non-test
// file using a package-level name, method or field declared in another
// file of the same package; a back arrow points against the best order
// the greedy feedback-arc heuristic (Eades, Lin and Smyth) finds, that is,
// it is part of a cycle between files. The hub's files should read top
// down: subsystems that grew in it move to their own packages instead.
const (
	maxProxyArrows     = 115
	maxProxyBackArrows = 27
)

// TestProxyArrows counts the proxy package's file-to-file arrows and fails
// above the bounds. Run with -v to see the figures.
func TestProxyArrows(t *testing.T) {
	edges := fileArrows(t, "proxy")
	back := backArrows(edges)
	t.Logf("proxy: %d arrows between files, %d back", len(edges), back)
	if len(edges) > maxProxyArrows || back > maxProxyBackArrows {
		t.Errorf("proxy has %d arrows (at most %d) and %d back arrows (at most %d): move a subsystem to its own package rather than raise the bound",
			len(edges), maxProxyArrows, back, maxProxyBackArrows)
	}
}

// TestArrowsCount checks the counter on a small fixed package: a uses b,
// b uses c, c uses a (one cycle, so one back arrow), and d uses a method
// declared in b.
func TestArrowsCount(t *testing.T) {
	edges := fileArrows(t, "internal/house/testdata/arrows")
	want := [][2]string{{"a.go", "b.go"}, {"b.go", "c.go"}, {"c.go", "a.go"}, {"d.go", "b.go"}}
	var got [][2]string
	for e := range edges {
		got = append(got, e)
	}
	slices.SortFunc(got, func(x, y [2]string) int { return strings.Compare(x[0]+x[1], y[0]+y[1]) })
	if !slices.Equal(got, want) {
		t.Fatalf("arrows %v, want %v", got, want)
	}
	if b := backArrows(edges); b != 1 {
		t.Fatalf("back arrows %d, want 1", b)
	}
}

// fileArrows type-checks the non-test files of the package in dir
// (relative to root) against its dependencies' export data and returns
// the set of arrows between its files.
func fileArrows(t *testing.T, dir string) map[[2]string]bool {
	t.Helper()
	fset := token.NewFileSet()
	files := parseDir(t, fset, filepath.Join(root, dir))
	exports := exportData(t, "./"+dir)
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, err := conf.Check(dir, fset, files, info)
	if err != nil {
		t.Fatalf("type-check %s: %v", dir, err)
	}
	edges := map[[2]string]bool{}
	add := func(at token.Pos, obj types.Object) {
		if obj == nil || obj.Pkg() != pkg || !obj.Pos().IsValid() {
			return
		}
		from := filepath.Base(fset.Position(at).Filename)
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if from != to {
			edges[[2]string{from, to}] = true
		}
	}
	for id, obj := range info.Uses {
		if obj.Parent() == pkg.Scope() {
			add(id.Pos(), obj)
		}
	}
	for sel, s := range info.Selections {
		add(sel.Sel.Pos(), s.Obj())
	}
	return edges
}

// parseDir parses the package's non-test Go files for this platform.
func parseDir(t *testing.T, fset *token.FileSet, dir string) []*ast.File {
	t.Helper()
	names, err := exec.Command("go", "list", "-f", `{{join .GoFiles "\n"}}`, dir).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", dir, err)
	}
	var files []*ast.File
	for _, name := range strings.Fields(string(names)) {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// exportData maps each dependency of pkg to its compiled export data.
func exportData(t *testing.T, pkg string) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-f", "{{.ImportPath}} {{.Export}}", pkg)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export %s: %v", pkg, err)
	}
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if path, file, ok := strings.Cut(sc.Text(), " "); ok {
			m[path] = file
		}
	}
	return m
}

// backArrows orders the files with the greedy feedback-arc heuristic
// (sinks to the end, sources to the front, else the file with the most
// outgoing minus incoming arrows next) and counts the arrows that point
// from a later file to an earlier one.
func backArrows(edges map[[2]string]bool) int {
	left := map[string]bool{}
	for e := range edges {
		left[e[0]], left[e[1]] = true, true
	}
	degree := func(n string) (in, out int) {
		for e := range edges {
			if left[e[0]] && left[e[1]] {
				if e[0] == n {
					out++
				}
				if e[1] == n {
					in++
				}
			}
		}
		return in, out
	}
	var front, back []string
	for len(left) > 0 {
		names := make([]string, 0, len(left))
		for n := range left {
			names = append(names, n)
		}
		slices.Sort(names)
		best, bestScore, moved := "", 0, false
		for _, n := range names {
			in, out := degree(n)
			switch {
			case out == 0:
				back = append([]string{n}, back...)
				delete(left, n)
				moved = true
			case in == 0:
				front = append(front, n)
				delete(left, n)
				moved = true
			case best == "" || out-in > bestScore:
				best, bestScore = n, out-in
			}
		}
		if !moved && best != "" {
			front = append(front, best)
			delete(left, best)
		}
	}
	pos := map[string]int{}
	for i, n := range append(front, back...) {
		pos[n] = i
	}
	count := 0
	for e := range edges {
		if pos[e[0]] > pos[e[1]] {
			count++
		}
	}
	return count
}
