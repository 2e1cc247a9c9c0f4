package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/config"
)

func TestCompletionKnowsEveryCommandAndFlag(t *testing.T) {
	// Every command --help lists is completed, with every flag its -h
	// names (the flag package's list, or the command's own usage text).
	byName := map[string]command{}
	for _, c := range commands() {
		byName[c.name] = c
	}
	for _, m := range regexp.MustCompile(`(?m)^  toolfold ([a-z-]+)`).FindAllStringSubmatch(usage, -1) {
		if _, ok := byName[m[1]]; !ok {
			t.Errorf("completion does not know the command %q", m[1])
		}
	}
	flagRE := regexp.MustCompile(`(?m)(?:^  -|\[--?)([a-z][a-z-]*)`)
	for _, c := range commands() {
		if slices.Contains([]string{"init", "completion", "version", "help"}, c.name) {
			continue
		}
		_, _, errs := runCLI(t, c.name, "-h")
		for _, m := range flagRE.FindAllStringSubmatch(errs, -1) {
			if !slices.Contains(c.flags, m[1]) {
				t.Errorf("completion of %s lacks its flag %s", c.name, m[1])
			}
		}
	}
}

func TestCompletionScriptsParse(t *testing.T) {
	checks := map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}}
	for _, sh := range shells {
		code, out, errs := runCLI(t, "completion", sh)
		if code != exitOK || out == "" {
			t.Fatalf("completion %s: %d %q", sh, code, errs)
		}
		if _, err := exec.LookPath(checks[sh][0]); err != nil {
			t.Logf("%s is not installed: its script is not parsed", sh)
			continue
		}
		file := filepath.Join(t.TempDir(), "toolfold."+sh)
		os.WriteFile(file, []byte(out), 0o600)
		if b, err := exec.Command(checks[sh][0], append(checks[sh][1:], file)...).CombinedOutput(); err != nil {
			t.Errorf("%s does not parse its script: %v\n%s\n%s", sh, err, b, out)
		}
	}
	if code, _, errs := runCLI(t, "completion", "powershell"); code != exitUsage || !strings.Contains(errs, "bash, zsh or fish") {
		t.Errorf("completion powershell: %d %q", code, errs)
	}
}

func TestBashCompletionCompletes(t *testing.T) {
	// The bash script, sourced, completes commands, clients, flags and
	// flag values as a person would type them.
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	_, script, _ := runCLI(t, "completion", "bash")
	file := filepath.Join(t.TempDir(), "toolfold.bash")
	os.WriteFile(file, []byte(script), 0o600)
	tests := []struct {
		line string
		want []string
	}{
		{"toolfold ins", []string{"install"}},
		{"toolfold com", []string{"completion"}},
		{"toolfold install claude-", []string{"claude-desktop", "claude-code"}},
		{"toolfold search --de", []string{"--detail"}},
		{"toolfold search --detail s", []string{"summary"}},
		{"toolfold audit --s", []string{"--since", "--session"}},
		{"toolfold completion f", []string{"fish"}},
		{"toolfold tools ap", []string{"approve"}},
		{"toolfold skills show l", []string{}}, // a skill's name, not a subcommand
	}
	for _, tt := range tests {
		words := strings.Fields(tt.line)
		var q []string
		for _, w := range words {
			q = append(q, "'"+w+"'")
		}
		prog := "source " + file + "; COMP_WORDS=(" + strings.Join(q, " ") + "); COMP_CWORD=" +
			strconv.Itoa(len(words)-1) + "; _toolfold; printf '%s\\n' \"${COMPREPLY[@]}\""
		out, err := exec.Command("bash", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v\n%s", tt.line, err, out)
		}
		got := strings.Fields(string(bytes.TrimSpace(out)))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("completing %q (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestInit(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, out, errs := runCLI(t, "init")
	if code != exitOK || !strings.Contains(out, "wrote proxy.yaml") {
		t.Fatalf("init: %d %q %q", code, out, errs)
	}
	// What check would say of it: it loads without a warning, with an
	// upstream, an ask before destructive tools and an audit log.
	cfg, err := config.Load(filepath.Join(dir, "proxy.yaml"), nil)
	if err != nil {
		t.Fatalf("the starter config does not load: %v", err)
	}
	if len(cfg.Warnings) != 0 || len(cfg.Upstreams) != 1 {
		t.Errorf("warnings %q, upstreams %d; want none and one", cfg.Warnings, len(cfg.Upstreams))
	}
	if got := policyStatus(cfg.Policy); !strings.HasPrefix(got, "default allow, 1 rule (1 ask)") {
		t.Errorf("policy: %q", got)
	}
	if got := auditStatus(cfg.Audit); !strings.HasPrefix(got, filepath.Join(dir, ".toolfold", "audit.jsonl")) {
		t.Errorf("audit: %q", got)
	}

	// It never overwrites a file.
	os.WriteFile("mine.yaml", []byte("# mine\n"), 0o600)
	for _, name := range []string{"proxy.yaml", "mine.yaml"} {
		before, _ := os.ReadFile(name)
		code, _, errs := runCLI(t, "init", name)
		if code != exitUsage || !strings.Contains(errs, "already exists: toolfold init does not overwrite it") {
			t.Errorf("init %s over a file: %d %q", name, code, errs)
		}
		if after, _ := os.ReadFile(name); !bytes.Equal(before, after) {
			t.Errorf("init changed %s", name)
		}
	}
	if code, _, _ := runCLI(t, "init", filepath.Join("sub", "new.yaml")); code != exitUsage {
		t.Errorf("init into a missing directory: %d, want a usage error", code)
	}
}

func TestFishCompletionCompletes(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed")
	}
	_, script, _ := runCLI(t, "completion", "fish")
	file := filepath.Join(t.TempDir(), "toolfold.fish")
	os.WriteFile(file, []byte(script), 0o600)
	for line, want := range map[string]string{
		"toolfold ins":               "install\tmove a client's servers into toolfold's file",
		"toolfold install claude-d":  "claude-desktop",
		"toolfold search --detail s": "summary",
		"toolfold skills show l":     "",
	} {
		out, err := exec.Command("fish", "-c", "source "+file+"; complete -C '"+line+"'").CombinedOutput()
		if got := strings.TrimSpace(string(out)); err != nil || got != want {
			t.Errorf("completing %q: %q, %v; want %q", line, got, err, want)
		}
	}
}
