package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/cliflags"
)

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestVersionAndUsage(t *testing.T) {
	if code, out, _ := runCLI(t, "version"); code != 0 || !strings.HasPrefix(out, "toolfold ") {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, errs := runCLI(t, "frobnicate"); code != exitUsage || !strings.Contains(errs, `unknown command "frobnicate"`) {
		t.Errorf("unknown command: %d %q", code, errs)
	}
	if code, _, errs := runCLI(t); code != exitUsage || !strings.Contains(errs, "Usage:") {
		t.Errorf("no args: %d %q", code, errs)
	}
}

func TestConfigErrorsExitTwo(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("upstreams:\n  fs:\n    comand: npx\n"), 0o600)
	code, _, errs := runCLI(t, "check", "-c", bad)
	if code != exitUsage || !strings.Contains(errs, bad+":3:5: upstreams.fs.comand: unknown key") {
		t.Errorf("check bad config: %d %q", code, errs)
	}
	code, _, errs = runCLI(t, "serve", "-c", filepath.Join(dir, "missing.yaml"))
	if code != exitUsage || !strings.Contains(errs, "not found: pass -c FILE") {
		t.Errorf("missing config: %d %q", code, errs)
	}
}

func TestCheckClientFile(t *testing.T) {
	// A typo in a client's file fails check with its line and a
	// did-you-mean; keys clients use that toolfold does not are printed as
	// warnings by check.
	dir := t.TempDir()
	bad := filepath.Join(dir, "claude_desktop_config.json")
	os.WriteFile(bad, []byte(`{"mcpServers": {
  "fs": {"comand": "npx", "args": ["-y", "x"]}
}}`), 0o600)
	code, _, errs := runCLI(t, "check", "-c", bad)
	if code != exitUsage || !strings.Contains(errs, bad+`:2:10: mcpServers.fs.comand: unknown key "comand"; did you mean "command"?`) {
		t.Errorf("check typo: %d %q", code, errs)
	}
	good := filepath.Join(dir, "mcp.json")
	os.WriteFile(good, []byte(`{"mcpServers": {"x": {"command": "/nonexistent/x", "autoApprove": [], "disabled": true}}}`), 0o600)
	_, out, _ := runCLI(t, "check", "-c", good)
	if !strings.Contains(out, `warning: `+good+`:1:52: mcpServers.x.autoApprove: ignored: toolfold does not use "autoApprove"`) {
		t.Errorf("check does not print the warning:\n%s", out)
	}
}

func TestServeRefusesPublicAddressWithoutToken(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(cfg, []byte("upstreams:\n  x:\n    command: /bin/true\n"), 0o600)
	code, _, errs := runCLI(t, "serve", "-c", cfg, "--http", "0.0.0.0:0")
	if code != exitUsage || !strings.Contains(errs, "bearer_token") {
		t.Errorf("serve 0.0.0.0: %d %q", code, errs)
	}
}

func TestFlagsAfterArguments(t *testing.T) {
	fs, c := newFlags("x", &bytes.Buffer{}, "warn")
	detail := fs.String("detail", "summary", "")
	pos, err := cliflags.Parse(fs, []string{"read", "a", "--detail", "full", "file", "-c", "p.yaml"})
	if err != nil || strings.Join(pos, " ") != "read a file" || *detail != "full" || c.config != "p.yaml" {
		t.Errorf("parse: %v %q %q %q", err, pos, *detail, c.config)
	}
}

func TestServeRefusesBadTelemetryEnvironment(t *testing.T) {
	t.Setenv("OTEL_TRACES_EXPORTER", "zipkin")
	cfg := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(cfg, []byte("upstreams:\n  x:\n    command: /bin/true\n"), 0o600)
	for _, cmd := range []string{"serve", "check"} {
		code, _, errs := runCLI(t, cmd, "-c", cfg)
		if code != exitUsage || !strings.Contains(errs, "OTEL_TRACES_EXPORTER=zipkin: toolfold exports otlp or console, or none") {
			t.Errorf("%s with OTEL_TRACES_EXPORTER=zipkin: %d %q", cmd, code, errs)
		}
	}
}

func TestVersionLine(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.0"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
		{Key: "vcs.time", Value: "2026-11-26T12:00:00Z"},
		{Key: "vcs.modified", Value: "true"},
	}}
	if got, want := versionLine(bi), "toolfold v1.2.0 (revision 0123456789ab, modified, 2026-11-26T12:00:00Z; go1.26.8)"; got != want {
		t.Errorf("versionLine = %q, want %q", got, want)
	}
	bi = &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}
	if got := versionLine(bi); !strings.HasPrefix(got, "toolfold (devel) (no VCS revision") {
		t.Errorf("versionLine without VCS = %q", got)
	}
}

func TestHelpListsEveryCommandAndFlag(t *testing.T) {
	// Each command's own flags (as its -h prints them) appear in --help.
	common := map[string]bool{"c": true, "config": true, "log-level": true}
	for _, cmd := range []string{"serve", "check", "search", "run", "login", "install", "uninstall"} {
		if !strings.Contains(usage, "toolfold "+cmd+" ") {
			t.Errorf("--help does not list %q", cmd)
			continue
		}
		_, _, errs := runCLI(t, cmd, "-h")
		for _, line := range strings.Split(errs, "\n") {
			name, ok := strings.CutPrefix(line, "  -")
			if !ok {
				continue
			}
			name, _, _ = strings.Cut(name, " ")
			if !common[name] && !strings.Contains(usage, "--"+name) {
				t.Errorf("--help lacks %s's flag --%s", cmd, name)
			}
		}
	}
	if !strings.Contains(usage, "toolfold version") {
		t.Error("--help does not list version")
	}
}

func TestInstallCommand(t *testing.T) {
	dir := t.TempDir()
	client := filepath.Join(dir, "mcp.json")
	orig := `{"mcpServers": {"x": {"command": "/bin/x"}}, "theme": "dark"}`
	os.WriteFile(client, []byte(orig), 0o600)
	tf := filepath.Join(dir, "tf", "servers.json")
	code, out, errs := runCLI(t, "install", "cursor", "--client-config", client, "--config", tf, "--dry-run")
	if code != 0 || !strings.Contains(out, "would move to "+tf+": x") || !strings.Contains(out, "dry run: nothing written") {
		t.Errorf("install --dry-run: %d %q %q", code, out, errs)
	}
	if b, _ := os.ReadFile(client); string(b) != orig {
		t.Errorf("--dry-run wrote the client's file: %s", b)
	}
	code, out, errs = runCLI(t, "install", "cursor", "--client-config", client, "--config", tf)
	if code != 0 || !strings.Contains(out, "move to "+tf+": x") || !strings.Contains(out, `leave one entry "toolfold"`) {
		t.Errorf("install: %d %q %q", code, out, errs)
	}
	if !strings.Contains(out, `add to `+tf+`: "policy"`) || !strings.Contains(out, `add to `+tf+`: "audit"`) {
		t.Errorf("install does not say it adds the policy and audit: %q", out)
	}
	// What check prints of the file install wrote: the policy and audit on.
	cfg, err := config.Load(tf, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := policyStatus(cfg.Policy), "default allow, 1 rule (1 ask)"; !strings.HasPrefix(got, want) {
		t.Errorf("check's policy line for install's file: %q, want %q", got, want)
	}
	if got, want := auditStatus(cfg.Audit), filepath.Join(dir, "tf", "audit.jsonl")+", rotated"; !strings.HasPrefix(got, want) {
		t.Errorf("check's audit line for install's file: %q, want %q", got, want)
	}
	if code, out, _ = runCLI(t, "install", "cursor", "--client-config", client, "--config", tf); code != 0 || !strings.Contains(out, "already installed") {
		t.Errorf("second install: %d %q", code, out)
	}
	if code, out, _ = runCLI(t, "uninstall", "cursor", "--client-config", client, "--config", tf); code != 0 || !strings.Contains(out, "put back from "+tf+": x") {
		t.Errorf("uninstall: %d %q", code, out)
	}
	if code, _, errs = runCLI(t, "install", "notepad"); code != exitUsage || !strings.Contains(errs, "claude-desktop, claude-code, cursor, vscode, windsurf") {
		t.Errorf("unknown client: %d %q", code, errs)
	}
}
