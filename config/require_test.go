package config

import (
	"strings"
	"testing"
)

func TestSandboxRequire(t *testing.T) {
	if got := mustParse(t, "", "upstreams: {a: {command: x}}", nil).Sandbox.Require; got != "degraded" {
		t.Errorf("default require = %q, want degraded", got)
	}
	for _, v := range []string{"full", "degraded", "none"} {
		if got := mustParse(t, "", "upstreams: {a: {command: x}}\nsandbox: {require: "+v+"}", nil).Sandbox.Require; got != v {
			t.Errorf("require: %s parsed as %q", v, got)
		}
	}
	_, err := Parse("test.yaml", []byte("sandbox: {require: strict}\n"), env(nil))
	want := `test.yaml:1:20: sandbox.require: must be full, degraded or none, got "strict"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
}

func TestSandboxWarm(t *testing.T) {
	if !mustParse(t, "", "upstreams: {a: {command: x}}", nil).Sandbox.Warm {
		t.Error("sandbox.warm is off by default")
	}
	if mustParse(t, "", "upstreams: {a: {command: x}}\nsandbox: {warm: false}", nil).Sandbox.Warm {
		t.Error("warm: false parsed as on")
	}
	_, err := Parse("test.yaml", []byte("sandbox: {warm: sometimes}\n"), env(nil))
	if err == nil || !strings.Contains(err.Error(), "test.yaml:1:17: sandbox.warm: ") {
		t.Errorf("err = %v, want a positioned sandbox.warm error", err)
	}
}

func TestSandboxPrestart(t *testing.T) {
	if got := mustParse(t, "", "upstreams: {a: {command: x}}", nil).Sandbox.Prestart; got != nil {
		t.Errorf("default prestart = %q, want nil (the default language)", got)
	}
	got := mustParse(t, "", "upstreams: {a: {command: x}}\nsandbox: {prestart: []}", nil).Sandbox.Prestart
	if got == nil || len(got) != 0 {
		t.Errorf("prestart: [] = %#v, want an empty list (none)", got)
	}
	got = mustParse(t, "", "upstreams: {a: {command: x}}\nsandbox: {prestart: [python, lua, python]}", nil).Sandbox.Prestart
	if strings.Join(got, ",") != "python,lua" {
		t.Errorf("prestart = %q, want [python lua]", got)
	}
	_, err := Parse("test.yaml", []byte("sandbox: {prestart: [lua, pyhton]}\n"), env(nil))
	want := `test.yaml:1:27: sandbox.prestart[1]: unknown language "pyhton"; did you mean "python"?`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %s", err, want)
	}
}
