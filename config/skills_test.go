package config

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSkillsSection(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "proxy.yaml")
	base := "upstreams:\n  a: {command: x}\n"
	tests := []struct {
		name, yaml string
		want       Skills
		stdio, web bool // MaySave
		err        string
	}{
		{"default", base, Skills{}, true, false, ""},
		{"save", base + "skills:\n  dir: s\n  save: true\n", Skills{Dir: filepath.Join(dir, "s"), SaveHTTP: true}, true, true, ""},
		{"no save", base + "skills:\n  dir: /srv/skills\n  save: false\n", Skills{Dir: "/srv/skills", NoSave: true}, false, false, ""},
		{"bad save", base + "skills:\n  save: sometimes\n", Skills{}, false, false, "skills.save: must be true or false"},
		{"empty dir", base + "skills:\n  dir: ' '\n", Skills{}, false, false, "skills.dir: must be a directory"},
		{"typo", base + "skills:\n  sav: true\n", Skills{}, false, false, `unknown key "sav"; did you mean "save"?`},
		{"reserved", "upstreams:\n  skills: {command: x}\n", Skills{}, false, false,
			`proxy.yaml:2:3: upstreams.skills: the name "skills" is toolfold's`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse(file, []byte(tt.yaml), nil)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantDir := tt.want.Dir
			if wantDir == "" {
				wantDir = filepath.Join(dir, ".toolfold", "skills")
			}
			if got := cfg.SkillsDir(); got != wantDir {
				t.Errorf("SkillsDir = %q, want %q", got, wantDir)
			}
			if diff := cmp.Diff(tt.want, cfg.Skills); diff != "" {
				t.Errorf("Skills (-want +got):\n%s", diff)
			}
			if got := cfg.Skills.MaySave(false); got != tt.stdio {
				t.Errorf("MaySave(stdio) = %v, want %v", got, tt.stdio)
			}
			if got := cfg.Skills.MaySave(true); got != tt.web {
				t.Errorf("MaySave(http) = %v, want %v", got, tt.web)
			}
		})
	}
}

func TestReservedUpstreamInClientFile(t *testing.T) {
	_, err := Parse("mcp.json", []byte(`{"mcpServers": {"skills": {"command": "x"}}}`), nil)
	if err == nil || !strings.Contains(err.Error(), `mcpServers.skills: the name "skills" is toolfold's`) {
		t.Fatalf("err = %v, want the reserved name refused", err)
	}
}

func TestYAMLToJSON(t *testing.T) {
	tests := []struct {
		name, yaml, want string
		line             int // of the error; 0 for success
	}{
		{"front matter", "name: area\ndescription: 'area: of a circle'\nparameters:\n  type: object\n  properties:\n    r: {type: number}\n  required: [r]\n",
			`{"description":"area: of a circle","name":"area","parameters":{"properties":{"r":{"type":"number"}},"required":["r"],"type":"object"}}`, 0},
		{"scalars", "a: 1\nb: 1.5\nc: true\nd: ~\ne: '1'\nf: 0x10\n", `{"a":1,"b":1.5,"c":true,"d":null,"e":"1","f":16}`, 0},
		{"json", `{"x": [1, "y"]}`, `{"x":[1,"y"]}`, 0},
		{"alias", "a: &x [1]\nb: *x\n", `{"a":[1],"b":[1]}`, 0},
		{"empty", "", `null`, 0},
		{"duplicate", "a: 1\na: 2\n", "", 2},
		{"inf", "a: .inf\n", "", 1},
		{"syntax", "a: [1\nb: 2\n", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := YAMLToJSON([]byte(tt.yaml))
			if tt.want == "" {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want an *Error", err)
				}
				if tt.line != 0 && e.Line != tt.line {
					t.Errorf("error %v on line %d, want %d", e, e.Line, tt.line)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			json.Unmarshal(got, &g)
			json.Unmarshal([]byte(tt.want), &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
