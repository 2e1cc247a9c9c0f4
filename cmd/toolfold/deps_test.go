package main

import (
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/rewrite"
)

// TestDependencyDirection: dependencies point one way, cmd → proxy →
// {upstream, config, index, sandbox, rewrite, ...}; no package below proxy imports
// it, and config imports no detector code (it owns the pii vocabulary,
// checked against rewrite below).
func TestDependencyDirection(t *testing.T) {
	const mod = "github.com/toolfold/toolfold/"
	forbidden := map[string][]string{
		"config":  {"proxy", "rewrite", "index", "skills", "store", "policy", "audit"},
		"index":   {"proxy", "rewrite", "config"},
		"sandbox": {"proxy", "config", "index", "rewrite"},
		"rewrite": {"proxy", "config", "index", "sandbox"},
		"skills":  {"proxy"},
		"store":   {"proxy", "config"},
		"policy":  {"proxy"},
		"audit":   {"proxy"},
		"oauth":   {"proxy", "config"},
		// upstream is below proxy: the pool calls back into the proxy
		// through the upstream.Hooks the proxy implements.
		"upstream": {"proxy", "dashboard"},
		// passthrough is below proxy too: the forwarder asks the proxy
		// for sessions, tools and tokenizing through passthrough.Hub, and
		// never tokenizes itself (no rewrite: the proxy's tokenizer does).
		"passthrough": {"proxy", "dashboard", "rewrite"},
		// skillhost: saved skills as a provider; the proxy runs their code
		// through the skillhost.Hub it implements, and refuses the
		// session's tokens in a saved skill (no rewrite here either).
		"skillhost": {"proxy", "dashboard", "passthrough", "rewrite"},
		// workspace: sessions' directories and run slots; the proxy hands
		// it each session's Owner, so it needs nothing of the proxy.
		"workspace": {"proxy"},
		// telemetry observes both edges, runs, searches and provider calls;
		// the proxy hands it what it needs (telemetry.Config), and chain.go
		// places its middleware on the edges the pool serves.
		"telemetry": {"proxy", "upstream", "dashboard"},
		"proxy":     {"dashboard"}, // the dashboard observes the proxy, not the other way
	}
	for pkg, bad := range forbidden {
		p, err := build.ImportDir(filepath.Join("..", "..", pkg), 0)
		if err != nil {
			t.Fatalf("%s: %v", pkg, err)
		}
		for _, imp := range p.Imports {
			if name, ok := strings.CutPrefix(imp, mod); ok && slices.Contains(bad, strings.Split(name, "/")[0]) {
				t.Errorf("package %s imports %s, against the one-way dependency rule (DESIGN.md)", pkg, imp)
			}
		}
	}
}

// TestPIIVocabularyAgrees: the pii section's vocabulary, which config owns,
// is the one rewrite implements.
func TestPIIVocabularyAgrees(t *testing.T) {
	if !slices.Equal(config.PIIDetectors, rewrite.DetectorNames()) {
		t.Errorf("config.PIIDetectors = %v, rewrite.DetectorNames() = %v", config.PIIDetectors, rewrite.DetectorNames())
	}
	for _, r := range rewrite.PhoneRegions() {
		if !slices.Contains(config.PhoneRegionCodes, r) {
			t.Errorf("rewrite has phone formats for %s, which config refuses", r)
		}
	}
	for _, typ := range config.PIIBuiltinTypes {
		if rewrite.ValidCustomName(strings.ToLower(typ)) {
			t.Errorf("rewrite takes %q as a custom detector name; config reserves it", typ)
		}
	}
	for _, typ := range []string{rewrite.TypeEmail, rewrite.TypePhone, rewrite.TypeCreditCard, rewrite.TypeIBAN,
		rewrite.TypeUSSSN, rewrite.TypeIPAddress, rewrite.TypeSecret, rewrite.TypeToken} {
		if !slices.Contains(config.PIIBuiltinTypes, typ) {
			t.Errorf("config does not reserve the built-in token type %s", typ)
		}
	}
}

// labPackages are the lab's packages: the product binary links none of
// them (the lab is cmd/toolfold-lab). The eval functions that live in
// index and rewrite are checked in the built binary's symbols by
// e2e's TestProductBinaryLinksNoLab.
var labPackages = []string{"cmd/toolfold-lab", "internal/bench", "internal/replay"}

// TestProductLinksNoLab: `go list -deps ./cmd/toolfold` names no lab
// package.
func TestProductLinksNoLab(t *testing.T) {
	const mod = "github.com/toolfold/toolfold/"
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps ./cmd/toolfold: %v", err)
	}
	deps := strings.Fields(string(out))
	if !slices.Contains(deps, mod+"proxy") {
		t.Fatalf("go list -deps printed no proxy: %q", out)
	}
	for _, d := range deps {
		name, ok := strings.CutPrefix(d, mod)
		if ok && slices.ContainsFunc(labPackages, func(lab string) bool { return name == lab || strings.HasPrefix(name, lab+"/") }) {
			t.Errorf("toolfold links the lab's %s: the lab belongs in cmd/toolfold-lab (DESIGN.md)", d)
		}
	}
}

// TestLabCommandsPointAtLab: the lab's commands, typed to toolfold, say
// where they went and exit 2.
func TestLabCommandsPointAtLab(t *testing.T) {
	for _, cmd := range []string{"bench", "eval-search", "eval-pii"} {
		code, out, errs := runCLI(t, cmd, "--quick")
		if code != exitUsage || out != "" || !strings.Contains(errs, "go run ./cmd/toolfold-lab "+cmd) {
			t.Errorf("toolfold %s: exit %d, stdout %q, stderr %q", cmd, code, out, errs)
		}
	}
}

// TestThirdPartyCopiesNoted: each library copied under internal/third_party
// carries its licence and a README.md saying where it came from, which
// release, and how to update it.
func TestThirdPartyCopiesNoted(t *testing.T) {
	root := filepath.Join("..", "..", "internal", "third_party")
	entries, err := os.ReadDir(root)
	if err != nil || len(entries) == 0 {
		t.Fatalf("no copied libraries in %s: %v", root, err)
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		if _, err := os.Stat(filepath.Join(dir, "LICENSE")); err != nil {
			t.Errorf("%s: no LICENSE: %v", dir, err)
		}
		readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
		if err != nil {
			t.Errorf("%s: no README.md: %v", dir, err)
			continue
		}
		for _, want := range []string{"**Upstream:** https://", "**Version:**", "## What was changed", "## How to update"} {
			if !strings.Contains(string(readme), want) {
				t.Errorf("%s/README.md lacks %q", dir, want)
			}
		}
	}
}
