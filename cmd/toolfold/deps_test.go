package main

import (
	"go/build"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/rewrite"
)

// TestDependencyDirection: dependencies point one way, cmd → proxy →
// {config, index, sandbox, rewrite, ...}; no package below proxy imports
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
		"proxy":   {"dashboard"}, // the dashboard observes the proxy, not the other way
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
