package skills

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func area() *Skill {
	return &Skill{
		Name:        "circle_area",
		Description: "Area of a circle from its radius",
		Language:    "python",
		Parameters:  json.RawMessage(`{"type":"object","properties":{"r":{"type":"number"}},"required":["r"]}`),
		Result:      json.RawMessage(`{"type":"number"}`),
		Notes:       "Returns a number.",
		Code:        "import math\nreturn math.pi * args['r'] ** 2\n",
	}
}

// jsonEqual compares JSON by value, not by key order.
var jsonEqual = cmp.Transformer("json", func(raw json.RawMessage) any {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	return v
})

func newStore(t *testing.T) *Files {
	t.Helper()
	f := NewFiles(filepath.Join(t.TempDir(), "skills"))
	tick := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	f.now = func() time.Time { // distinct version stamps
		mu.Lock()
		defer mu.Unlock()
		tick = tick.Add(time.Second)
		return tick
	}
	return f
}

func TestSaveGetRoundTrip(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	want := area()
	if err := Save(ctx, st, want, nil); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, "circle_area")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, jsonEqual); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	md, err := os.ReadFile(filepath.Join(st.Dir(), "circle_area", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	wantMD := "---\nname: circle_area\ndescription: Area of a circle from its radius\nlanguage: python\n" +
		`parameters: {"type":"object","properties":{"r":{"type":"number"}},"required":["r"]}` + "\n" +
		`result: {"type":"number"}` + "\n---\nReturns a number.\n"
	if diff := cmp.Diff(wantMD, string(md)); diff != "" {
		t.Errorf("SKILL.md (-want +got):\n%s", diff)
	}
	for _, p := range []string{"", "circle_area", "circle_area/main.py"} {
		info, err := os.Stat(filepath.Join(st.Dir(), p))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v; want no access for group and others", p, info.Mode().Perm())
		}
	}
}

func TestDescriptionQuoting(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	for i, d := range []string{"true", "key: value # not a comment", `quotes "and" \ back`, "ünïcode – dash", "- list?", "123"} {
		s := area()
		s.Name = "s" + string(rune('a'+i))
		s.Description = d
		if err := Save(ctx, st, s, nil); err != nil {
			t.Fatal(err)
		}
		got, err := st.Get(ctx, s.Name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Description != d {
			t.Errorf("description %q read back as %q", d, got.Description)
		}
	}
}

func TestOverwriteKeepsVersions(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	if err := Save(ctx, st, area(), nil); err != nil {
		t.Fatal(err)
	}
	s2 := area()
	s2.Language, s2.Code = "lua", "return math.pi * args.r ^ 2"
	if err := Save(ctx, st, s2, nil); !errors.Is(err, ErrExists) {
		t.Fatalf("second save without overwrite: %v; want ErrExists", err)
	}
	if err := Save(ctx, st, s2, &SaveOptions{Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, "circle_area")
	if err != nil || got.Language != "lua" || got.Code != s2.Code {
		t.Fatalf("after overwrite: %+v, %v; want the Lua version", got, err)
	}
	if _, err := os.Stat(filepath.Join(st.Dir(), "circle_area", "main.py")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the old main.py is still in the folder (%v)", err)
	}
	versions, _ := os.ReadDir(filepath.Join(st.Dir(), ".versions", "circle_area"))
	if len(versions) != 1 {
		t.Fatalf("%d previous versions kept, want 1", len(versions))
	}
	old, err := ReadFolder(filepath.Join(st.Dir(), ".versions", "circle_area", versions[0].Name()))
	if err != nil || old.Language != "python" {
		t.Errorf("previous version: %+v, %v; want the Python one", old, err)
	}
	for range MaxVersions + 3 {
		if err := Save(ctx, st, s2, &SaveOptions{Overwrite: true}); err != nil {
			t.Fatal(err)
		}
	}
	versions, _ = os.ReadDir(filepath.Join(st.Dir(), ".versions", "circle_area"))
	if len(versions) != MaxVersions {
		t.Errorf("%d previous versions kept, want %d", len(versions), MaxVersions)
	}
	list, err := st.List(ctx)
	if err != nil || len(list) != 1 {
		t.Errorf("List: %d skills, %v; want 1 (versions and temporary folders are not skills)", len(list), err)
	}
}

func TestRemove(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	if err := st.Remove(ctx, "circle_area"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Remove of a missing skill: %v; want ErrNotFound", err)
	}
	if err := Save(ctx, st, area(), nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Remove(ctx, "circle_area"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "circle_area"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Remove: %v; want ErrNotFound", err)
	}
	if v, _ := os.ReadDir(filepath.Join(st.Dir(), ".versions", "circle_area")); len(v) != 1 {
		t.Errorf("a removed skill is kept as a version: %d found, want 1", len(v))
	}
}

func TestSaveChecks(t *testing.T) {
	ctx := context.Background()
	compile := func(_ context.Context, lang, code string) error {
		if strings.Contains(code, "oops") {
			return &CodeError{Line: 2, Msg: "invalid syntax"}
		}
		return nil
	}
	refuse := func(text string) string {
		if strings.Contains(text, "[EMAIL_1]") {
			return "holds [EMAIL_1], a token of this session's personal data"
		}
		return ""
	}
	tests := []struct {
		name   string
		edit   func(s *Skill)
		errSub string
	}{
		{"ok", func(s *Skill) {}, ""},
		{"not identifier", func(s *Skill) { s.Name = "circle-area" }, "is not an identifier"},
		{"digit first", func(s *Skill) { s.Name = "2d" }, "is not an identifier"},
		{"keyword", func(s *Skill) { s.Name = "end" }, "is a keyword"},
		{"python keyword", func(s *Skill) { s.Name = "lambda" }, "is a keyword"},
		{"reserved", func(s *Skill) { s.Name = "save" }, "taken by skills.save"},
		{"long name", func(s *Skill) { s.Name = strings.Repeat("a", 65) }, "at most 64"},
		{"no description", func(s *Skill) { s.Description = " " }, "needs a description"},
		{"two lines", func(s *Skill) { s.Description = "a\nb" }, "one line"},
		{"long description", func(s *Skill) { s.Description = strings.Repeat("é", 301) }, "keep it under 300"},
		{"language", func(s *Skill) { s.Language = "ruby" }, `language "ruby" is not one of lua, python or javascript`},
		{"no code", func(s *Skill) { s.Code = "\n" }, "has no code"},
		{"big code", func(s *Skill) { s.Code = strings.Repeat("x", MaxCodeBytes+1) }, "over the 256 KiB cap"},
		{"params not object", func(s *Skill) { s.Parameters = json.RawMessage(`[1]`) }, "must be a JSON Schema object"},
		{"params type", func(s *Skill) { s.Parameters = json.RawMessage(`{"type":"array"}`) }, `must describe an object`},
		{"syntax", func(s *Skill) { s.Code = "x = 1\noops(\n" }, "skill circle_area was not saved: its python code does not compile: skill:2: invalid syntax"},
		{"token in code", func(s *Skill) { s.Code = "return '[EMAIL_1]'" }, "the code holds [EMAIL_1]"},
		{"token in notes", func(s *Skill) { s.Notes = "mail [EMAIL_1]" }, "the notes holds [EMAIL_1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := newStore(t)
			s := area()
			tt.edit(s)
			err := Save(ctx, st, s, &SaveOptions{Compile: compile, Refuse: refuse})
			if tt.errSub == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.errSub) {
				t.Fatalf("err = %v, want %q", err, tt.errSub)
			}
			if _, err := os.Stat(st.Dir()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused skill wrote to the directory (%v)", err)
			}
		})
	}
}

func TestCaseCollision(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	if err := Save(ctx, st, area(), nil); err != nil {
		t.Fatal(err)
	}
	s := area()
	s.Name = "Circle_Area"
	if err := Save(ctx, st, s, &SaveOptions{Overwrite: true}); err == nil || !strings.Contains(err.Error(), "differs only in case") {
		t.Fatalf("err = %v, want a case collision", err)
	}
}

func TestDirMustBeOwn(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	if err := Save(ctx, st, area(), nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(st.Dir(), 0o777); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"list": func() error { _, err := st.List(ctx); return err }(),
		"get":  func() error { _, err := st.Get(ctx, "circle_area"); return err }(),
		"save": Save(ctx, st, area(), &SaveOptions{Overwrite: true}),
	} {
		if err == nil || !strings.Contains(err.Error(), "writable by other users") {
			t.Errorf("%s: err = %v, want the directory refused", name, err)
		}
	}
	link := filepath.Join(t.TempDir(), "link")
	os.Chmod(st.Dir(), 0o700)
	if err := os.Symlink(st.Dir(), link); err != nil {
		t.Fatal(err)
	}
	if _, err := NewFiles(link).List(ctx); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a symlinked skills.dir: %v; want it refused", err)
	}
}

func TestMissingDir(t *testing.T) {
	st := NewFiles(filepath.Join(t.TempDir(), "none"))
	list, err := st.List(context.Background())
	if err != nil || len(list) != 0 {
		t.Errorf("List of a missing directory: %v, %v; want nothing", list, err)
	}
	if _, err := st.Get(context.Background(), "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get: %v; want ErrNotFound", err)
	}
}

func TestHandWrittenFolder(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	write := func(name, md, file, code string) {
		dir := filepath.Join(st.Dir(), name)
		os.MkdirAll(dir, 0o700)
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o600)
		if file != "" {
			os.WriteFile(filepath.Join(dir, file), []byte(code), 0o600)
		}
	}
	os.MkdirAll(st.Dir(), 0o700)
	// Block YAML, no language (from main.js), a client's extra keys, CRLF.
	write("greet", "---\r\nname: greet\r\ndescription: >-\r\n  Say hello\r\n  to someone\r\nlicense: MIT\r\nparameters:\r\n  type: object\r\n  properties:\r\n    who: {type: string}\r\n---\r\n\r\nBe kind.\r\n",
		"main.js", "return 'hello ' + args.who;")
	write("broken", "no front matter\n", "main.lua", "return 1")
	write("misnamed", "---\nname: other\ndescription: x y\nlanguage: lua\n---\n", "main.lua", "return 1")
	write("nocode", "---\nname: nocode\ndescription: x y\nlanguage: lua\n---\n", "", "")
	list, err := st.List(ctx)
	if len(list) != 1 || list[0].Name != "greet" {
		t.Fatalf("List: %+v; want greet alone", list)
	}
	want := &Skill{Name: "greet", Description: "Say hello to someone", Language: "javascript",
		Parameters: json.RawMessage(`{"properties":{"who":{"type":"string"}},"type":"object"}`),
		Notes:      "Be kind.", Code: "return 'hello ' + args.who;"}
	if diff := cmp.Diff(want, list[0], jsonEqual); diff != "" {
		t.Errorf("greet (-want +got):\n%s", diff)
	}
	for _, sub := range []string{"broken/SKILL.md: must start with a --- line", `name "other" differs from its folder's "misnamed"`, "nocode/main.lua: missing"} {
		if err == nil || !strings.Contains(err.Error(), sub) {
			t.Errorf("List error %v; want it to say %q", err, sub)
		}
	}
}

func TestCheckArgs(t *testing.T) {
	s := area()
	if got, err := s.CheckArgs(json.RawMessage(`{"r": 2}`)); err != nil || string(got) != `{"r": 2}` {
		t.Errorf("CheckArgs({r: 2}) = %s, %v", got, err)
	}
	if _, err := s.CheckArgs(nil); err == nil || !strings.Contains(err.Error(), "missing required argument r") {
		t.Errorf("CheckArgs(nil) = %v; want r missing", err)
	}
	if _, err := s.CheckArgs(json.RawMessage(`[1]`)); err == nil {
		t.Error("CheckArgs([1]) accepted an array")
	}
	s.Parameters = nil
	if got, err := s.CheckArgs(nil); err != nil || string(got) != "{}" {
		t.Errorf("no parameters: CheckArgs(nil) = %s, %v; want {}", got, err)
	}
}

func TestConcurrentSaves(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if err := Save(ctx, st, area(), &SaveOptions{Overwrite: true}); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, err := st.Get(ctx, "circle_area"); err != nil || got.Code != area().Code {
		t.Errorf("after concurrent saves: %v", err)
	}
}

// TestSkillFolderMustBeOwn: skills.dir being toolfold's own is not
// enough; each skill folder and its files must be too: not a symlink (to
// another user's directory), owned by toolfold's user or root, writable
// by no one else. Such a skill is left out, and the error says why.
func TestSkillFolderMustBeOwn(t *testing.T) {
	ctx := context.Background()
	hello := "---\nname: %s\ndescription: Say hello\nlanguage: lua\n---\n"
	plant := func(t *testing.T, dir, name string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(strings.Replace(hello, "%s", name, 1)), 0o600)
		os.WriteFile(filepath.Join(dir, "main.lua"), []byte("return 'planted'"), 0o600)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, st *Files, folder string)
		want  string
	}{
		{"folder is a symlink", func(t *testing.T, st *Files, folder string) {
			other := filepath.Join(t.TempDir(), "theirs")
			plant(t, other, "evil")
			if err := os.Symlink(other, folder); err != nil {
				t.Fatal(err)
			}
		}, "evil is a symlink, which toolfold does not follow"},
		{"SKILL.md is a symlink", func(t *testing.T, st *Files, folder string) {
			other := filepath.Join(t.TempDir(), "theirs")
			plant(t, other, "evil")
			plant(t, folder, "evil")
			os.Remove(filepath.Join(folder, "SKILL.md"))
			os.Symlink(filepath.Join(other, "SKILL.md"), filepath.Join(folder, "SKILL.md"))
		}, "SKILL.md is a symlink"},
		{"code is a symlink", func(t *testing.T, st *Files, folder string) {
			other := filepath.Join(t.TempDir(), "theirs")
			plant(t, other, "evil")
			plant(t, folder, "evil")
			os.Remove(filepath.Join(folder, "main.lua"))
			os.Symlink(filepath.Join(other, "main.lua"), filepath.Join(folder, "main.lua"))
		}, "main.lua is a symlink"},
		{"folder writable by others", func(t *testing.T, st *Files, folder string) {
			plant(t, folder, "evil")
			os.Chmod(folder, 0o777)
		}, "evil is writable by other users (mode -rwxrwxrwx); chmod go-w it"},
		{"code writable by others", func(t *testing.T, st *Files, folder string) {
			plant(t, folder, "evil")
			os.Chmod(filepath.Join(folder, "main.lua"), 0o666)
		}, "main.lua is writable by other users"},
		{"folder of another user", func(t *testing.T, st *Files, folder string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a folder away")
			}
			plant(t, folder, "evil")
			os.Chown(folder, 65534, 65534)
		}, "belongs to uid 65534, not toolfold's user"},
		{"code of another user", func(t *testing.T, st *Files, folder string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a file away")
			}
			plant(t, folder, "evil")
			os.Chown(filepath.Join(folder, "main.lua"), 65534, 65534)
		}, "main.lua belongs to uid 65534"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newStore(t)
			if err := Save(ctx, st, area(), nil); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, st, filepath.Join(st.Dir(), "evil"))
			list, err := st.List(ctx)
			if len(list) != 1 || list[0].Name != "circle_area" {
				t.Errorf("List: %d skills; want circle_area alone", len(list))
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("List error %v\nwant it to say %q", err, tc.want)
			}
			if s, err := st.Get(ctx, "evil"); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Get = %v, %v; want it refused saying %q", s, err, tc.want)
			}
		})
	}
}
