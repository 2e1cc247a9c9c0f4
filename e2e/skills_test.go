package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeSkill writes a skill folder (SKILL.md and its code file) under dir.
func writeSkill(t *testing.T, dir, name, front, file, code string) string {
	t.Helper()
	folder := filepath.Join(dir, name)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, "SKILL.md"), []byte("---\n"+front+"---\nNotes.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(folder, file), []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	return folder
}

// TestSkillsCLI: toolfold skills add checks a folder (a syntax error is
// refused with its line, and nothing is written), list shows what was
// saved, run runs it with arguments, check counts it, rm removes it.
func TestSkillsCLI(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("python3")
	needLanguage(t, err == nil, "python")
	cfg := writeConfig(t, "upstreams:\n  idle: {command: \"true\", disabled: true}\n")
	src := t.TempDir()
	good := writeSkill(t, src, "hypot", "name: hypot\ndescription: Length of the hypotenuse of a right triangle\n"+
		"language: python\nparameters: {type: object, properties: {a: {type: number}, b: {type: number}}, required: [a, b]}\n",
		"main.py", "import math\nprint('sides', args['a'], args['b'])\nreturn math.hypot(args['a'], args['b'])\n")
	bad := writeSkill(t, src, "broken", "name: broken\ndescription: Does not compile\nlanguage: lua\n",
		"main.lua", "local x = 1\nlocal y = = 2\nreturn x\n")

	r := runCLI(t, "skills", "-c", cfg, "add", bad)
	if r.code != 1 || !strings.Contains(r.stderr, "skill:2: ") {
		t.Errorf("add of a skill with a syntax error on line 2: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	skillsDir := filepath.Join(filepath.Dir(cfg), ".toolfold", "skills")
	if _, err := os.Stat(filepath.Join(skillsDir, "broken")); !os.IsNotExist(err) {
		t.Errorf("the refused skill was written (%v)", err)
	}
	if r := runCLI(t, "skills", "-c", cfg, "add", good); r.code != 0 {
		t.Fatalf("add: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, "skills", "-c", cfg, "list")
	if r.code != 0 || !strings.Contains(r.stdout, "hypot") || !strings.Contains(r.stdout, "Length of the hypotenuse") || strings.Contains(r.stdout, "broken") {
		t.Errorf("list: exit %d; want hypot and not broken:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "skills", "-c", cfg, "run", "hypot", `{"a": 3, "b": 4}`)
	if r.code != 0 || !strings.Contains(r.stdout, "sides 3 4\n") || !strings.Contains(r.stdout, "=> 5.0\n") {
		t.Errorf("run hypot {a: 3, b: 4}: exit %d; want its output and 5.0:\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "skills", "-c", cfg, "run", "hypot", `{"a": 3}`)
	if r.code == 0 || !strings.Contains(r.stderr, "missing required argument b") {
		t.Errorf("run without b: exit %d:\n%s", r.code, r.stderr)
	}
	r = runCLI(t, "check", "-c", cfg)
	if want := "skills: 1 skill in " + skillsDir; !strings.Contains(r.stdout, want) {
		t.Errorf("check lacks %q:\n%s", want, r.stdout)
	}
	if r := runCLI(t, "skills", "-c", cfg, "rm", "hypot"); r.code != 0 {
		t.Fatalf("rm: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, "skills", "-c", cfg, "list"); !strings.Contains(r.stdout, "no skills in") {
		t.Errorf("list after rm:\n%s", r.stdout)
	}
}
