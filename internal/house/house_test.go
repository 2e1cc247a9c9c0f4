package house

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// root is the module's root, two levels up from this package.
const root = "../.."

// packageDirs lists the module's directories that hold Go files, slash
// separated and relative to root, skipping testdata and hidden folders.
func packageDirs(t *testing.T) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); !slices.Contains(dirs, rel) {
			dirs = append(dirs, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(dirs)
	return dirs
}

// mapEntry is a line of the package map: "- `proxy/`: ...".
var mapEntry = regexp.MustCompile("(?m)^- `([^`]+)/`")

// TestPackageMap: docs/development.md's package map names every package
// directory, and no directory that is gone. A new package gets its line
// there, with what it is for.
func TestPackageMap(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, m := range mapEntry.FindAllStringSubmatch(string(doc), -1) {
		listed = append(listed, m[1])
	}
	dirs := packageDirs(t)
	for _, d := range dirs {
		if !slices.Contains(listed, d) {
			t.Errorf("package directory %s/ is not on the package map of docs/development.md: add a line \"- `%s/`: what it is for\"", d, d)
		}
	}
	for _, l := range listed {
		if !slices.Contains(dirs, l) {
			t.Errorf("docs/development.md lists %s/, which holds no Go package: remove its line or correct the path", l)
		}
	}
}

// maxFileLines bounds a source file: STYLE.md's "files rarely over 500
// lines", with room for the few a little over. A file past it is split by
// what its parts do, as proxy/telemetry.go was.
const maxFileLines = 600

// TestFileSizes: no source file of ours is over maxFileLines lines
// (copies of other projects' code excepted).
func TestFileSizes(t *testing.T) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch {
			case d.Name() == "third_party", d.Name() == "testdata", path != root && strings.HasPrefix(d.Name(), "."):
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte("\n")); n > maxFileLines {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s has %d lines, over %d: split it by what its parts do", filepath.ToSlash(rel), n, maxFileLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
