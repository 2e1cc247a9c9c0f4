package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckSaysPhoneRegionFromLocale: without pii.phone_regions, check
// shows the region of the host's locale in force and why; LC_ALL wins
// over LANG; an explicit empty list keeps international formats only.
func TestCheckSaysPhoneRegionFromLocale(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.yaml")
	os.WriteFile(plain, []byte("upstreams:\n  x: {command: /nonexistent/x, disabled: true}\n"), 0o600)
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, []byte("upstreams:\n  x: {command: /nonexistent/x, disabled: true}\npii: {phone_regions: []}\n"), 0o600)
	for _, c := range []struct {
		cfg, lcAll, lang, want string
	}{
		{plain, "", "de_DE.UTF-8", "national phone formats of DE (the locale LANG=de_DE.UTF-8; set pii.phone_regions"},
		{plain, "en_US.UTF-8", "de_DE.UTF-8", "national phone formats of US (the locale LC_ALL=en_US.UTF-8"},
		{plain, "", "C", "international phone formats only (the locale LANG=C names no region"},
		{plain, "", "", "international phone formats only (no locale set"},
		{empty, "", "en_US.UTF-8", "international phone formats only (pii.phone_regions is empty)"},
	} {
		t.Setenv("LC_ALL", c.lcAll)
		t.Setenv("LC_MESSAGES", "")
		t.Setenv("LANG", c.lang)
		_, out, errs := runCLI(t, "check", "-c", c.cfg)
		if !strings.Contains(out, c.want) {
			t.Errorf("LC_ALL=%q LANG=%q %s: check lacks %q:\n%s%s", c.lcAll, c.lang, filepath.Base(c.cfg), c.want, out, errs)
		}
	}
}

// TestSkillsAddRefusesPersonalData: a skill a person adds with an address
// in its description is refused, naming the type and place, and not
// written; with the address in pii.allow it is saved.
func TestSkillsAddRefusesPersonalData(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "proxy.yaml")
	os.WriteFile(cfg, []byte("upstreams:\n  x: {command: /nonexistent/x, disabled: true}\n"), 0o600)
	skill := filepath.Join(dir, "src", "mailer")
	os.MkdirAll(skill, 0o700)
	os.WriteFile(filepath.Join(skill, "SKILL.md"), []byte("---\nname: mailer\ndescription: Mail erin.desc@example.com\nlanguage: lua\n---\n"), 0o600)
	os.WriteFile(filepath.Join(skill, "main.lua"), []byte("return 1\n"), 0o600)
	code, out, errs := runCLI(t, "skills", "-c", cfg, "add", skill)
	if code == exitOK || !strings.Contains(errs, "the description holds personal data (EMAIL at line 1, column 6)") ||
		!strings.Contains(errs, "pii.allow") || strings.Contains(errs, "erin.desc@example.com") {
		t.Errorf("skills add of a description with an address: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, ".toolfold", "skills", "mailer")); !os.IsNotExist(err) {
		t.Errorf("the refused skill was written (%v)", err)
	}
	os.WriteFile(cfg, []byte("upstreams:\n  x: {command: /nonexistent/x, disabled: true}\npii: {allow: [erin.desc@example.com]}\n"), 0o600)
	if code, out, errs := runCLI(t, "skills", "-c", cfg, "add", skill); code != exitOK {
		t.Errorf("skills add with the address allowed: exit %d\n%s%s", code, out, errs)
	}
}
