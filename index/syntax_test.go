package index

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesParse renders every corpus tool's example call in Python and
// JavaScript and has the real parsers check them (skipped without python3
// or node).
func TestExamplesParse(t *testing.T) {
	ix := loadTestCorpus(t)
	all := ix.All()
	checks := []struct {
		lang, bin, file string
		args            func(path string) []string
		wrap            func(lines []string) string
	}{
		{"python", "python3", "ex.py", func(p string) []string {
			return []string{"-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", p}
		}, func(ls []string) string { return strings.Join(ls, "\n") + "\n" }},
		{"javascript", "node", "ex.mjs", func(p string) []string { return []string{"--check", p} },
			func(ls []string) string {
				return "async function f(tools) {\n" + strings.Join(ls, "\n{\n") + strings.Repeat("\n}", len(ls)-1) + "\n}\n"
			}},
	}
	for _, c := range checks {
		t.Run(c.lang, func(t *testing.T) {
			bin, err := exec.LookPath(c.bin)
			if err != nil {
				t.Skipf("%s not found", c.bin)
			}
			var lines []string
			for _, l := range strings.Split(ix.Render("", all, DetailFull, c.lang), "\n") {
				if ex, ok := strings.CutPrefix(l, "Example: "); ok {
					lines = append(lines, ex)
				}
			}
			if len(lines) != len(all) {
				t.Fatalf("%d examples for %d tools", len(lines), len(all))
			}
			path := filepath.Join(t.TempDir(), c.file)
			if err := os.WriteFile(path, []byte(c.wrap(lines)), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(bin, c.args(path)...).CombinedOutput(); err != nil {
				t.Errorf("%s rejects an example call: %v\n%s", c.bin, err, out)
			}
		})
	}
}
