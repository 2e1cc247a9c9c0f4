package proxy

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/skills"
)

func TestSkillSaveFromScript(t *testing.T) {
	up := newPIIServer()
	store := skills.NewFiles(filepath.Join(t.TempDir(), "skills"))
	_, cs := startProxyWith(t, testConfig(httpUpstream(t, "crm", up.srv)), &Options{Skills: store})
	out, failed := runLua(t, cs, `
local r = skills.save{name = "double", description = "Double a number", code = "return args.x * 2",
	parameters = {type = "object", properties = {x = {type = "number"}}, required = {"x"}}}
print(r.saved, r.language)
local ok, err = pcall(skills.save, {name = "broken", description = "Does not compile", code = "local x = 1\nreturn x +"})
print(err)
local email = string.match(tools.crm.lookup{}[1].text, "%[EMAIL_%d+%]")
ok, err = pcall(skills.save, {name = "mailer", description = "Mail someone", code = "return '" .. email .. "'"})
print(err)
ok, err = pcall(skills.save, {name = "double", description = "Again", code = "return 1"})
print(err)
return skills.save{name = "double", description = "Double a number, again", code = "return args.x + args.x", overwrite = true}`)
	if failed {
		t.Fatalf("script failed:\n%s", out)
	}
	for _, want := range []string{
		"skills.double\tlua\n",
		"skills.save: skill broken was not saved: its lua code does not compile: skill:2: ",
		"skills.save: skill mailer: the code holds [EMAIL_1], a token standing for this session's personal data",
		"skills.save: skills.double: skill exists; save with overwrite",
		`=> {"call":"tools.skills.double","language":"lua","saved":"skills.double"}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	list, err := store.List(context.Background())
	if err != nil || len(list) != 1 || list[0].Name != "double" || list[0].Code != "return args.x + args.x" {
		t.Errorf("store holds %+v (%v); want the overwritten double alone", list, err)
	}
}

func TestSkillSaveRefusedByConfig(t *testing.T) {
	store := skills.NewFiles(filepath.Join(t.TempDir(), "skills"))
	cfg := testConfig()
	cfg.Skills.NoSave = true
	_, cs := startProxyWith(t, cfg, &Options{Skills: store})
	out, failed := runLua(t, cs, `return skills.save{name = "x", description = "An x", code = "return 1"}`)
	if !failed || !strings.Contains(out, "saving skills is off here (skills.save: false") {
		t.Errorf("save with skills.save: false: %s", out)
	}
	if list, _ := store.List(context.Background()); len(list) != 0 {
		t.Errorf("saved %v", list)
	}
}
