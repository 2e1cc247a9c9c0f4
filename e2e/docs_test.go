package e2e

// The documentation's claims, run: every shell snippet of README.md and
// docs/*.md that claims an output, and every figure of the sample config
// that `toolfold check` prints.
//
// The convention, for anyone writing docs: a fenced block tagged `console`
// holds commands and the output they claim.
//
//   - A line starting with "$ " is a command, run with bash in a copy of the
//     repository's proxy.yaml and docs/examples/ (so relative paths such as
//     docs/examples/orders.csv work), with `toolfold` on PATH and the npm
//     servers the sample names served from e2e's pinned install.
//   - A command ending in a heredoc (<<'EOF') takes the lines up to the
//     delimiter as its input, as bash does.
//   - The lines after a command, up to the next "$ " line or the block's end,
//     are its expected output: stdout and stderr as written, each line
//     compared with trailing spaces trimmed, trailing blank lines ignored.
//   - A line that is exactly "..." stands for any number of lines (none
//     too); "..." inside a line stands for any text within that line.
//
// Any other fenced block (sh, text, yaml, ...) is an illustration and is not
// run: use `text` for output that depends on the reader's machine (paths
// under a home directory, dates).
//
// Figures in prose are compared too, where they are the sample's: see
// TestDocsFigures for the phrases it reads. The search_tools description
// docs/search.md quotes is compared with the one served
// (TestDocsSearchDescription).

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docFiles are the documents whose snippets and figures are checked,
// relative to the e2e directory.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"../README.md"}, files...)
}

// snippet is one command of a console block and the output it claims.
type snippet struct {
	where string // file:line of the command
	cmd   string
	want  []string
}

var heredoc = regexp.MustCompile(`<<-?'?"?(\w+)'?"?\s*$`)

// consoleSnippets returns the commands of every console block in file.
func consoleSnippets(t *testing.T, file string) []snippet {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var out []snippet
	in := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case !in && strings.TrimSpace(l) == "```console":
			in = true
		case in && strings.TrimSpace(l) == "```":
			in = false
		case in && strings.HasPrefix(l, "$ "):
			s := snippet{where: fmt.Sprintf("%s:%d", strings.TrimPrefix(file, "../"), i+1), cmd: l[2:]}
			if m := heredoc.FindStringSubmatch(l); m != nil {
				for i++; i < len(lines) && lines[i] != m[1]; i++ {
					s.cmd += "\n" + lines[i]
				}
				s.cmd += "\n" + m[1]
			}
			for i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "$ ") && strings.TrimSpace(lines[i+1]) != "```" {
				i++
				s.want = append(s.want, lines[i])
			}
			out = append(out, s)
		case in:
			t.Errorf("%s:%d: a console block's first line must be a command (\"$ ...\"), not %q", file, i+1, l)
		}
	}
	return out
}

// outputLines splits output into lines, trailing spaces trimmed and
// trailing blank lines dropped.
func outputLines(s string) []string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t\r")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lineMatches reports whether got matches want, where "..." in want stands
// for any text.
func lineMatches(want, got string) bool {
	if !strings.Contains(want, "...") {
		return want == got
	}
	parts := strings.Split(want, "...")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$").MatchString(got)
}

// linesMatch reports whether got matches want, where a want line "..."
// stands for any number of lines.
func linesMatch(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for skip := 0; skip <= len(got); skip++ {
			if linesMatch(want[1:], got[skip:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(want[0], got[0]) && linesMatch(want[1:], got[1:])
}

// docsEnv is where the snippets run: a directory holding copies of the
// sample proxy.yaml and docs/examples/, and a bin directory with toolfold
// and an npx that starts the pinned npm servers with node.
type docsEnv struct {
	dir   string
	env   []string // the whole environment of a snippet
	extra []string // what it adds to the test's own
}

func newDocsEnv(t *testing.T) *docsEnv {
	t.Helper()
	toolfold := needToolfold(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, ".bin")
	for _, d := range []string{bin, filepath.Join(dir, "docs"), filepath.Join(dir, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(toolfold, filepath.Join(bin, "toolfold")); err != nil {
		t.Fatal(err)
	}
	writeNPXShim(t, filepath.Join(bin, "npx"))
	copyFile(t, "../proxy.yaml", filepath.Join(dir, "proxy.yaml"))
	if err := os.CopyFS(filepath.Join(dir, "docs", "examples"), os.DirFS("../docs/examples")); err != nil {
		t.Fatal(err)
	}
	e := &docsEnv{dir: dir}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") && !isLocaleVar(kv) && !strings.HasPrefix(kv, "PATH=") &&
			!strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "TOOLFOLD_") {
			e.env = append(e.env, kv)
		}
	}
	e.extra = []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + filepath.Join(dir, "home"),
		"TOOLFOLD_MEMORY_FILE=" + filepath.Join(dir, "memory.jsonl"),
		"TOOLFOLD_LOG=error"}
	e.env = append(e.env, e.extra...)
	return e
}

// writeNPXShim writes an npx that runs the npm servers of e2e's pinned
// install for `npx -y @modelcontextprotocol/server-NAME@VERSION ARGS...`,
// refusing any package or version e2e/testdata/package.json does not pin:
// the sample's pins and the tests' stay the same.
func writeNPXShim(t *testing.T, path string) {
	t.Helper()
	var pkg struct{ Dependencies map[string]string }
	if err := readJSON("testdata/package.json", &pkg); err != nil {
		t.Fatal(err)
	}
	var cases strings.Builder
	for _, short := range npmServers {
		name := "@modelcontextprotocol/server-" + short
		fmt.Fprintf(&cases, "%s@%s) exec %s %s \"$@\" ;;\n", name, pkg.Dependencies[name],
			shellQuote(setup.node), shellQuote(needNPM(t, short)))
	}
	script := "#!/bin/sh\n# npx for the docs' snippets: the pinned npm servers of e2e/testdata.\n" +
		"[ \"$1\" = -y ] && shift\npkg=$1; shift\ncase $pkg in\n" + cases.String() +
		"*) echo \"npx (docs test): $pkg is not pinned in e2e/testdata/package.json\" >&2; exit 1 ;;\nesac\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// run runs one shell command in the environment and returns its output,
// stdout and stderr as written.
func (e *docsEnv) run(t *testing.T, cmd string) string {
	t.Helper()
	ctx := testCtx(t, 3*cliTimeout)
	c := exec.CommandContext(ctx, "bash", "-c", cmd)
	c.Dir, c.Env = e.dir, e.env
	c.WaitDelay = exitGrace
	out, err := c.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s: %v\n%s", cmd, ctx.Err(), out)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("%s: %v", cmd, err)
	}
	return string(out)
}

// TestDocsSnippets runs every console block of README.md and docs/*.md
// and compares what each command prints with what the block claims.
func TestDocsSnippets(t *testing.T) {
	e := newDocsEnv(t)
	n := 0
	for _, file := range docFiles(t) {
		for _, s := range consoleSnippets(t, file) {
			n++
			t.Run(s.where, func(t *testing.T) {
				got := e.run(t, s.cmd)
				if !linesMatch(outputLines(strings.Join(s.want, "\n")), outputLines(got)) {
					t.Errorf("%s: $ %s\nthe document claims:\n%s\nthe command printed:\n%s\n(fix the document, or the program)",
						s.where, s.cmd, strings.Join(s.want, "\n"), got)
				}
			})
		}
	}
	if n == 0 {
		t.Fatal("no console blocks found: the README's quickstart has some")
	}
}

// sampleFigures are the figures `toolfold check -c proxy.yaml` prints for
// the sample config, commas dropped.
type sampleFigures struct {
	tools, directTokens, advertisedBytes, advertisedTokens string
	saved                                                  string // percent, as printed
	serverTools                                            map[string]string
}

var (
	checkRow     = regexp.MustCompile(`(?m)^(\w+)\s+stdio\s+\S+\s+(\d+)\s+\d+\s+\d+\s+ok`)
	checkTotal   = regexp.MustCompile(`(?m)^total\s+(\d+)\s+\d+\s+(\d+)\s*$`)
	checkAdverts = regexp.MustCompile(`toolfold advertises 2 tools \(search_tools, run_script\): (\d+) bytes, (\d+) tokens instead of (\d+) tokens \(([\d.]+)% less\)`)
)

// checkSample runs check on the sample and reads its figures. It skips when
// python or javascript is not available: run_script's description, and so
// the advertised figures, then differ from the documented ones.
func checkSample(t *testing.T, e *docsEnv) sampleFigures {
	t.Helper()
	out := e.run(t, "toolfold check -c proxy.yaml")
	for _, lang := range []string{"python", "javascript"} {
		if !strings.Contains(out, "language "+lang+": available") {
			t.Skipf("language %s is not available here, so run_script's description differs from the documented sample's:\n%s", lang, out)
		}
	}
	f := sampleFigures{serverTools: map[string]string{}}
	for _, m := range checkRow.FindAllStringSubmatch(out, -1) {
		f.serverTools[m[1]] = m[2]
	}
	tot, ad := checkTotal.FindStringSubmatch(out), checkAdverts.FindStringSubmatch(out)
	if tot == nil || ad == nil || len(f.serverTools) != len(npmServers) {
		t.Fatalf("toolfold check's output has changed shape; update checkSample's patterns:\n%s", out)
	}
	f.tools, f.directTokens = tot[1], tot[2]
	f.advertisedBytes, f.advertisedTokens, f.saved = ad[1], ad[2], ad[4]
	if ad[3] != f.directTokens {
		t.Fatalf("check's total (%s tokens) and its summary (%s tokens) differ:\n%s", f.directTokens, ad[3], out)
	}
	return f
}

// figurePhrase is a way the docs name a figure of the sample; every match
// of re in README.md and docs/*.md must name the figures check prints.
type figurePhrase struct {
	re   *regexp.Regexp
	want func(f sampleFigures, m []string) []string // what each group must be
}

var figurePhrases = []figurePhrase{
	{regexp.MustCompile(`([\d,]+) tokens instead of ([\d,]+)`), func(f sampleFigures, _ []string) []string {
		return []string{f.advertisedTokens, f.directTokens}
	}},
	{regexp.MustCompile(`([\d.]+)% less`), func(f sampleFigures, _ []string) []string {
		return []string{f.saved}
	}},
	{regexp.MustCompile(`the three servers' (?:own )?([\d,]+) tools`), func(f sampleFigures, _ []string) []string {
		return []string{f.tools}
	}},
	{regexp.MustCompile(`\b(everything|filesystem|memory) \([^()]*; ([\d,]+) tools\)`), func(f sampleFigures, m []string) []string {
		return []string{m[1], f.serverTools[m[1]]}
	}},
}

// figuresRows are the rows of docs/figures.md whose command is check on the
// sample, by their first cell, and the figure each must hold.
var figuresRows = map[string]func(f sampleFigures) string{
	"tools of the sample's three servers": func(f sampleFigures) string { return f.tools },
	"their tools/list":                    func(f sampleFigures) string { return f.directTokens + " tokens" },
	"toolfold's two tools for the sample": func(f sampleFigures) string { return f.advertisedTokens + " tokens" },
	"context saved before the first word": func(f sampleFigures) string { return f.saved + "%" },
}

var figuresRow = regexp.MustCompile("(?m)^\\| ([^|]+?) \\| ([^|]+?) \\| `toolfold check -c proxy.yaml` \\|$")

// TestDocsFigures compares the sample's figures that README.md and
// docs/*.md name (the phrases of figurePhrases, and the rows of
// docs/figures.md made by `toolfold check -c proxy.yaml`) with what check
// prints, so that they cannot drift from the program.
func TestDocsFigures(t *testing.T) {
	f := checkSample(t, newDocsEnv(t))
	seen := make([]int, len(figurePhrases))
	for _, file := range docFiles(t) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for i, p := range figurePhrases {
			for _, m := range p.re.FindAllStringSubmatch(text, -1) {
				seen[i]++
				want := p.want(f, m)
				for g, w := range want {
					if got := strings.ReplaceAll(m[g+1], ",", ""); got != w {
						t.Errorf("%s: %q: %q should be %s, as `toolfold check -c proxy.yaml` prints", strings.TrimPrefix(file, "../"), m[0], m[g+1], w)
					}
				}
			}
		}
	}
	for i, n := range seen {
		if n == 0 {
			t.Errorf("no document names a figure as %v: the README's What the model sees does", figurePhrases[i].re)
		}
	}
	checkFiguresRows(t, f)
}

// checkFiguresRows checks docs/figures.md's rows made by check.
func checkFiguresRows(t *testing.T, f sampleFigures) {
	t.Helper()
	data, err := os.ReadFile("../docs/figures.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := figuresRow.FindAllStringSubmatch(string(data), -1)
	if len(rows) != len(figuresRows) {
		t.Errorf("docs/figures.md has %d rows made by `toolfold check -c proxy.yaml`, this test knows %d: add the new ones to figuresRows", len(rows), len(figuresRows))
	}
	for _, r := range rows {
		want, ok := figuresRows[r[1]]
		if !ok {
			t.Errorf("docs/figures.md: row %q: add it to figuresRows in e2e/docs_test.go", r[1])
			continue
		}
		if got := strings.ReplaceAll(r[2], ",", ""); got != want(f) {
			t.Errorf("docs/figures.md: row %q says %s; `toolfold check -c proxy.yaml` prints %s", r[1], r[2], want(f))
		}
	}
}

// quotedDescription is the blockquote in docs/search.md that quotes
// search_tools' description for the sample.
var quotedDescription = regexp.MustCompile(`(?m)(?:^> .*\n)*^> Find tools of the MCP servers(?:.*\n)(?:^> .*\n)*`)

// TestDocsSearchDescription compares the search_tools description that
// docs/search.md quotes with the one toolfold serves for the sample.
func TestDocsSearchDescription(t *testing.T) {
	e := newDocsEnv(t)
	data, err := os.ReadFile("../docs/search.md")
	if err != nil {
		t.Fatal(err)
	}
	quote := quotedDescription.FindString(string(data))
	if quote == "" {
		t.Fatal("docs/search.md no longer quotes search_tools' description in a blockquote starting \"> Find tools of the MCP servers\"")
	}
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(quote), "\n") {
		words = append(words, strings.Fields(strings.TrimPrefix(l, ">"))...)
	}
	cs := startStdioEnv(t, filepath.Join(e.dir, "proxy.yaml"), e.extra...).cs
	res, err := cs.ListTools(testCtx(t, callTimeout), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range res.Tools {
		if tool.Name == "search_tools" {
			if got, want := strings.Join(strings.Fields(tool.Description), " "), strings.Join(words, " "); got != want {
				t.Errorf("docs/search.md quotes search_tools' description as\n%s\nbut toolfold serves\n%s", want, got)
			}
			return
		}
	}
	t.Fatalf("toolfold serves no search_tools: %v", res.Tools)
}

// TestDocsMatching pins the snippet convention's matching rules.
func TestDocsMatching(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"a\nb", "a\nb\n\n", true},
		{"a\nb", "a\nc", false},
		{"a\n...\nd", "a\nb\nc\nd", true},
		{"a\n...\nd", "a\nd", true},
		{"a\n...", "a", true},
		{"x ... ms]", "x 12 ms]", true},
		{"x ... ms]", "y 12 ms]", false},
		{"a", "a\nb", false},
	} {
		if got := linesMatch(outputLines(c.want), outputLines(c.got)); got != c.ok {
			t.Errorf("linesMatch(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
}
