package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
)

// tableRow returns the line of a `toolfold check` table whose first cell is name.
func tableRow(t *testing.T, table, name string) string {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		cells := strings.FieldsFunc(line, func(r rune) bool { return unicode.IsSpace(r) || r == '|' || r == '│' })
		if len(cells) > 0 && cells[0] == name {
			return line
		}
	}
	t.Errorf("no row for %q in the check table:\n%s", name, table)
	return ""
}

// checkHeader finds the table's header line, the one naming every column.
func checkHeader(t *testing.T, out string) {
	t.Helper()
	cols := []string{"server", "transport", "protocol", "tools", "status"}
	for _, line := range strings.Split(strings.ToLower(out), "\n") {
		if !slices.ContainsFunc(cols, func(c string) bool { return !strings.Contains(line, c) }) {
			return
		}
	}
	t.Errorf("no check table header naming the columns %v in:\n%s", cols, out)
}

var protocolRE = regexp.MustCompile(`\b20\d\d-\d\d-\d\d\b`)

// TestBadConfig: config errors carry file:line:col, all at once, exit 2, and stdout
// (the stdio transport in serve) stays clean.
func TestBadConfig(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "bad.yaml")
	yaml := `upstreams:
  fs:
    comand: node
sandbox:
  timeout: banana
`
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"check", "-c", path}, {"serve", "-c", path}} {
		t.Run(args[0], func(t *testing.T) {
			r := runCLIWithin(t, cliTimeout, args...)
			if r.code != 2 {
				t.Errorf("exit %d, want 2", r.code)
			}
			for _, want := range []string{"bad.yaml:3:5:", "comand", "bad.yaml:5:"} {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if args[0] == "serve" && r.stdout != "" {
				t.Errorf("serve wrote to stdout (the protocol stream): %q", r.stdout)
			}
		})
	}
}

// TestCheckProtocolVersions: every upstream connects and check reports the
// protocol version it speaks: the TS SDK servers an older one despite the
// 2026-07-28 server/discover probe, the Go server 2026-07-28.
func TestCheckProtocolVersions(t *testing.T) {
	t.Parallel()
	ups, _ := npmTrio(t)
	ups["go-everything"] = upstream{Command: needGoEverything(t)}
	start := time.Now()
	// The bound only catches a hang: check starts four servers and runs a script in
	// each language, which on a loaded two-core machine has taken over 30 s.
	r := runCLIWithin(t, 3*cliTimeout, "check", "-c", writeConfig(t, configYAML(ups)))
	t.Logf("toolfold check took %v:\n%s", time.Since(start).Round(time.Millisecond), r.stdout)
	if r.code != 0 {
		t.Errorf("exit %d, want 0\nstderr:\n%s", r.code, r.stderr)
	}
	checkHeader(t, r.stdout)
	for _, name := range append(npmServers, "go-everything") {
		row := tableRow(t, r.stdout, name)
		if !protocolRE.MatchString(row) {
			t.Errorf("%s: no protocol version in %q", name, row)
		}
	}
	if row := tableRow(t, r.stdout, "go-everything"); !strings.Contains(row, "2026-07-28") {
		t.Errorf("go-everything should speak 2026-07-28: %q", row)
	}
}

// TestCheckBrokenUpstream: one upstream that cannot start is reported by check
// (exit 1) and shown as unavailable while the others serve.
func TestCheckBrokenUpstream(t *testing.T) {
	t.Parallel()
	ups, root := npmTrio(t)
	delete(ups, "everything")
	ups["broken"] = upstream{Command: "/nonexistent/toolfold-e2e-no-such-server"}
	cfg := writeConfig(t, configYAML(ups))

	r := runCLI(t, "check", "-c", cfg)
	if r.code != 1 {
		t.Errorf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	checkHeader(t, r.stdout)
	for _, name := range []string{"filesystem", "memory"} {
		if row := tableRow(t, r.stdout, name); !protocolRE.MatchString(row) {
			t.Errorf("%s should have connected: %q", name, row)
		}
	}
	tableRow(t, r.stdout, "broken")
	if all := r.stdout + r.stderr; !strings.Contains(all, "no such file") && !strings.Contains(all, "not found") {
		t.Errorf("check does not show why broken failed:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}

	cs := startStdio(t, cfg)
	tools, _ := listTools(t, cs)
	res := callTool(t, cs, "search_tools", map[string]any{"query": "broken", "detail": "name"})
	seen := text(res)
	for _, tool := range tools {
		seen += "\n" + tool.Description
	}
	if !strings.Contains(seen, "broken") || !strings.Contains(strings.ToLower(seen), "unavailable") {
		t.Errorf("neither search nor the tool descriptions say broken is unavailable:\n%s", seen)
	}
	checkLineCount(t, cs, root)
	checkUnavailable(t, scriptErr(t, cs, "return tools.broken.anything{}"), "broken")
}

// TestCLISearchRun: the two tools from a terminal.
func TestCLISearchRun(t *testing.T) {
	t.Parallel()
	ups, root := npmTrio(t)
	cfg := writeConfig(t, configYAML(ups))

	t.Run("version", func(t *testing.T) {
		if r := runCLI(t, "version"); r.code != 0 || strings.TrimSpace(r.stdout) == "" {
			t.Errorf("toolfold version: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("search", func(t *testing.T) {
		r := runCLI(t, "search", "-c", cfg, "--detail", "name", "read a text file")
		names := qualifiedNames(r.stdout)
		if r.code != 0 || len(names) == 0 || !strings.HasPrefix(names[0], "filesystem.read") {
			t.Errorf("exit %d, want 0 and a filesystem read tool first:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
	t.Run("run", func(t *testing.T) {
		script := filepath.Join(t.TempDir(), "count.lua")
		if err := os.WriteFile(script, []byte(lua(lineCountScript, "root", root)), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "run", "-c", cfg, script)
		var total int
		if returned(t, r.stdout, &total); r.code != 0 || total != fsTxtLines {
			t.Errorf("exit %d, total %d; want 0, %d:\n%s\nstderr:\n%s", r.code, total, fsTxtLines, r.stdout, r.stderr)
		}
	})
	t.Run("run failing script", func(t *testing.T) {
		script := filepath.Join(t.TempDir(), "fail.lua")
		if err := os.WriteFile(script, []byte("\nerror(\"nope\")\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runCLI(t, "run", "-c", cfg, script)
		if all := r.stdout + r.stderr; r.code != 1 || !strings.Contains(all, "script:2:") || !strings.Contains(all, "nope") {
			t.Errorf("exit %d, want 1 and script:2: nope:\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
		}
	})
}
