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

// pySaveFahrenheit is a Python script that does a task (a conversion)
// and saves it as a Lua skill, then tries to save one that does not
// compile (its syntax error is on line 2 of the skill's code).
const pySaveFahrenheit = `
code = "local f = args.celsius * 9 / 5 + 32\nprint('converted', args.celsius)\nreturn f"
print("37 C is", 37 * 9 / 5 + 32, "F")
saved = skills.save(name="celsius_to_fahrenheit", description="Convert a temperature from degrees Celsius to Fahrenheit",
                    language="lua", code=code,
                    parameters={"type": "object", "properties": {"celsius": {"type": "number"}}, "required": ["celsius"]})
try:
    skills.save(name="broken_skill", description="Does not compile", language="lua", code="local x = 1\nlocal y = = 2\n")
except ToolError as e:
    print("refused:", e)
return saved
`

// TestSkillsSavedFromScripts: a Python script in one toolfold process
// saves a skill and has a skill with a syntax error refused with its
// line; toolfold skills list then shows the first and not the second.
// Over HTTP without skills.save: true, saving is refused and nothing is
// written; with it, saving works.
func TestSkillsSavedFromScripts(t *testing.T) {
	t.Parallel()
	_, err := exec.LookPath("python3")
	needLanguage(t, err == nil, "python")
	cfg := writeConfig(t, "upstreams:\n  idle: {command: \"true\", disabled: true}\n")
	skillsDir := filepath.Join(filepath.Dir(cfg), ".toolfold", "skills")

	cs := startStdio(t, cfg)
	out := langOK(t, cs, "python", pySaveFahrenheit)
	for _, want := range []string{"37 C is 98.6 F", `"saved":"skills.celsius_to_fahrenheit"`,
		"refused: skills.save: skill broken_skill was not saved: its lua code does not compile: skill:2: "} {
		if !strings.Contains(out, want) {
			t.Errorf("the saving run's output lacks %q:\n%s", want, out)
		}
	}
	r := runCLI(t, "skills", "-c", cfg, "list")
	if !strings.Contains(r.stdout, "celsius_to_fahrenheit") || strings.Contains(r.stdout, "broken_skill") {
		t.Errorf("skills list: want the saved skill and not the refused one:\n%s%s", r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(skillsDir, "celsius_to_fahrenheit", "main.lua")); err != nil {
		t.Errorf("the saved skill's code file: %v", err)
	}

	// A new toolfold process, started later, finds the skill with a
	// paraphrase of its description and calls it from Lua.
	cs2 := startStdio(t, cfg)
	found := text(callTool(t, cs2, "search_tools", map[string]any{"query": "turn a reading in degrees C into F", "limit": 3}))
	if !strings.Contains(found, "skills.celsius_to_fahrenheit") {
		t.Errorf("search_tools with a paraphrase did not find the saved skill in its first 3:\n%s", found)
	}
	out = scriptOK(t, cs2, "print('calling')\nlocal f = tools.skills.celsius_to_fahrenheit{celsius = 100}\nprint('got', f)\nreturn f")
	if !strings.Contains(out, "calling\nconverted\t100\ngot\t212\n=> 212\n") {
		t.Errorf("calling the skill from Lua in a new process:\n%s", out)
	}
	out = scriptErr(t, cs2, "return tools.skills.celsius_to_fahrenheit{}")
	if !strings.Contains(out, "missing required argument celsius") {
		t.Errorf("calling without its argument:\n%s", out)
	}

	httpCfg := writeConfig(t, "upstreams:\n  idle: {command: \"true\", disabled: true}\n")
	httpSkills := filepath.Join(filepath.Dir(httpCfg), ".toolfold", "skills")
	hs := connectHTTP(t, startHTTP(t, httpCfg))
	out = langErr(t, hs, "python", `return skills.save(name="planted", description="Plant code", language="lua", code="return 1")`)
	if !strings.Contains(out, "saving skills is off over HTTP") || !strings.Contains(out, "skills.save: true") {
		t.Errorf("save over HTTP without skills.save: true:\n%s", out)
	}
	if _, err := os.Stat(httpSkills); !os.IsNotExist(err) {
		t.Errorf("a refused save over HTTP wrote %s (%v)", httpSkills, err)
	}

	okCfg := writeConfig(t, "upstreams:\n  idle: {command: \"true\", disabled: true}\nskills: {save: true}\n")
	hs = connectHTTP(t, startHTTP(t, okCfg))
	langOK(t, hs, "javascript", `return await skills.save({name: "shout", description: "Upper-case a text", code: "return args.text.toUpperCase();"})`)
	if _, err := os.Stat(filepath.Join(filepath.Dir(okCfg), ".toolfold", "skills", "shout", "main.js")); err != nil {
		t.Errorf("save over HTTP with skills.save: true: %v", err)
	}
}
