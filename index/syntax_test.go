package index

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestSyntaxNames(t *testing.T) {
	tests := []struct {
		lang, server, tool, want string
	}{
		{"python", "calc", "end", "tools.calc.end"},
		{"python", "calc", "import", `tools["calc"]["import"]`},
		{"python", "None", "x", `tools["None"]["x"]`},
		{"javascript", "calc", "delete", `tools["calc"]["delete"]`},
		{"javascript", "calc", "end", "tools.calc.end"},
		{"lua", "calc", "end", `tools.calc["end"]`},
	}
	for _, tt := range tests {
		if got := syntaxFor(tt.lang).toolExpr(tt.server, tt.tool); got != tt.want {
			t.Errorf("%s toolExpr(%q, %q) = %s, want %s", tt.lang, tt.server, tt.tool, got, tt.want)
		}
	}
	args := []exampleArg{{"to", "a@b.c"}, {"from", "x\n\"y\""}, {"x-y", nil}, {"n", 2.5}, {"ok", true},
		{"m", map[string]any{"in": []any{1.0, "<&>"}}}}
	py := syntaxFor("python").example("tools.mail.send", args)
	if want := `r = tools.mail.send(to="a@b.c", n=2.5, ok=True, m={"in": [1, "<&>"]}, **{"from": "x\n\"y\"", "x-y": None})`; py != want {
		t.Errorf("python example:\n got %s\nwant %s", py, want)
	}
	js := syntaxFor("js").example("tools.mail.send", args)
	if want := `const r = await tools.mail.send({to: "a@b.c", from: "x\n\"y\"", "x-y": null, n: 2.5, ok: true, m: {in: [1, "<&>"]}});`; js != want {
		t.Errorf("javascript example:\n got %s\nwant %s", js, want)
	}
}

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
