package config

import (
	"strings"
	"testing"
)

func TestExposeDefaults(t *testing.T) {
	cfg, err := Parse("p.yaml", []byte("upstreams:\n  a: {command: x}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Expose.Mode != ExposeCode || cfg.Expose.Namespace != NamespaceAuto || cfg.Expose.Pin != nil {
		t.Fatalf("defaults: %+v", cfg.Expose)
	}
}

func TestExposeParse(t *testing.T) {
	cfg, err := Parse("p.yaml", []byte("upstreams:\n  a: {command: x}\nexpose: hybrid\npin: [a.foo]\nnamespace: always\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Expose{Mode: ExposeHybrid, Pin: []string{"a.foo"}, Namespace: NamespaceAlways}
	if cfg.Expose.Mode != want.Mode || cfg.Expose.Namespace != want.Namespace || len(cfg.Expose.Pin) != 1 || cfg.Expose.Pin[0] != "a.foo" {
		t.Fatalf("got %+v, want %+v", cfg.Expose, want)
	}
}

func TestExposeErrors(t *testing.T) {
	_, err := Parse("p.yaml", []byte("upstreams:\n  a: {command: x}\nexpose: everything\npin: [b.bar, nodot]\nnamespace: sometimes\n"), nil)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{
		`expose: must be one of code, passthrough, hybrid, not "everything"`,
		`namespace: must be one of auto, always, not "sometimes"`,
		`"nodot": write the qualified name server.tool`,
		`pin: "b.bar" names no upstream "b"`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("errors lack %q:\n%v", want, err)
		}
	}
}

func TestPinWithoutHybridWarns(t *testing.T) {
	cfg, err := Parse("p.yaml", []byte("upstreams:\n  a: {command: x}\npin: [a.foo]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], "expose: hybrid") {
		t.Fatalf("warnings: %q", cfg.Warnings)
	}
}

// TestPinSkill: pin: [skills.NAME] exposes a saved skill, as docs/configuration.md
// says; skills is no upstream but is a server (issue 28 item 9).
func TestPinSkill(t *testing.T) {
	cfg, err := Parse("p.yaml", []byte("upstreams:\n  a: {command: x}\nexpose: hybrid\npin: [skills.daily_report, a.foo]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Expose.Pin) != 2 || cfg.Expose.Pin[0] != "skills.daily_report" {
		t.Fatalf("pin = %q", cfg.Expose.Pin)
	}
}
