package proxy

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/sandbox"
)

// namedRunner is a runner that only has a name.
type namedRunner string

func (n namedRunner) Language() string { return string(n) }

func (namedRunner) Run(context.Context, sandbox.Request, sandbox.Host) (*sandbox.Result, error) {
	return &sandbox.Result{}, nil
}

// TestRunScriptListsServedLanguages: the schema's enum and the description
// name exactly the languages with a runner.
func TestRunScriptListsServedLanguages(t *testing.T) {
	lua := sandbox.NewLua(&sandbox.LuaOptions{Exe: os.Args[0]})
	for _, tt := range []struct {
		runners []sandbox.Runner
		want    []string
		absent  []string
	}{
		{[]sandbox.Runner{lua}, []string{"lua"}, []string{"python", "javascript"}},
		{[]sandbox.Runner{lua, namedRunner("python")}, []string{"lua", "python"}, []string{"javascript"}},
		{[]sandbox.Runner{lua, namedRunner("python"), namedRunner("javascript")}, []string{"lua", "python", "javascript"}, nil},
	} {
		p := New(testConfig(), &Options{Runners: tt.runners})
		run := p.AdvertisedTools()[1]
		var schema struct {
			Properties struct {
				Language struct {
					Enum []string `json:"enum"`
				} `json:"language"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(run.InputSchema.(json.RawMessage), &schema); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(schema.Properties.Language.Enum, ","); got != strings.Join(tt.want, ",") {
			t.Errorf("language enum = %s, want %v", got, tt.want)
		}
		for _, lang := range tt.absent {
			if strings.Contains(run.Description, `language "`+lang+`"`) {
				t.Errorf("description mentions %s, which is not served:\n%s", lang, run.Description)
			}
		}
		for _, lang := range tt.want[1:] {
			if !strings.Contains(run.Description, `language "`+lang+`"`) {
				t.Errorf("description does not show %s:\n%s", lang, run.Description)
			}
		}
		p.Close()
	}
}
