package skillhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skills"
)

// Saving skills: a script's skills.save reaches Save (through its owner's
// script host), which checks who may save (skills.save in proxy.yaml),
// refuses what the saver's Refuse refuses (the session's PII tokens, raw
// personal data), compiles the code in the sandbox and keeps the skill in
// the store (skills.dir by default), shared by every session.

// saveRequest is what skills.save sends.
type saveRequest struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Language    string          `json:"language"` // default: the saving script's
	Code        string          `json:"code"`
	Parameters  json.RawMessage `json:"parameters"`
	Result      json.RawMessage `json:"result"`
	Notes       string          `json:"notes"`
	Overwrite   bool            `json:"overwrite"`
}

// Save is skills.save in a script (sandbox.SkillSaver) of by: params as
// the script sent them. A failure the script can act on is a
// *sandbox.ToolError.
func (sp *Provider) Save(ctx context.Context, by Saver, params json.RawMessage) (json.RawMessage, error) {
	fail := func(format string, args ...any) (json.RawMessage, error) {
		return nil, &sandbox.ToolError{Tool: "skills.save", Msg: "skills.save: " + fmt.Sprintf(format, args...)}
	}
	if why := saveRefusal(sp.o.Config, by.OverHTTP); why != "" {
		return fail("%s", why)
	}
	var req saveRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return fail(`expected {name, description, language, code, parameters, result, notes, overwrite}: %v`, err)
	}
	if req.Language == "" {
		req.Language = by.Language
	}
	s := &skills.Skill{Name: req.Name, Description: req.Description, Language: req.Language, Code: req.Code,
		Parameters: nullToNil(req.Parameters), Result: nullToNil(req.Result), Notes: req.Notes}
	err := skills.Save(ctx, sp.o.Store, s, &skills.SaveOptions{
		Overwrite: req.Overwrite,
		Compile:   CompileCheck(sp.o.Sandbox, sp.o.Runners),
		Refuse:    by.Refuse,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return fail("%v", err)
	}
	sp.log.Info("skill saved", "skill", s.Name, "language", s.Language)
	sp.saved()
	return json.Marshal(map[string]any{"saved": "skills." + s.Name, "language": s.Language,
		"call": "tools.skills." + s.Name})
}

// saveRefusal says why a session (over HTTP or not) may not save skills
// under cfg, or "".
func saveRefusal(cfg config.Skills, http bool) string {
	if cfg.MaySave(http) {
		return ""
	}
	if cfg.NoSave {
		return "saving skills is off here (skills.save: false in proxy.yaml); the user adds them with toolfold skills add"
	}
	return "saving skills is off over HTTP: every session shares them, so one client could plant code that another's scripts run; " +
		"the user can allow it with skills.save: true in proxy.yaml"
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// saved is called after a skill is saved through this provider: the
// store's list is read again, and the catalog follows.
func (sp *Provider) saved() {
	ctx, cancel := context.WithTimeout(sp.o.Life, 5*time.Second)
	defer cancel()
	sp.reload(ctx)
}

// checkTimeout bounds compiling a skill's code.
const checkTimeout = 20 * time.Second

// CompileCheck is skills.SaveOptions.Compile for runners: the code compiled
// by its language's runner, inside the sandbox (sandbox.Request.Check),
// without running it. A syntax error is a *skills.CodeError.
func CompileCheck(sb config.Sandbox, runners []sandbox.Runner) func(ctx context.Context, lang, code string) error {
	return func(ctx context.Context, lang, code string) error {
		r := runnerOf(runners, lang)
		if r == nil {
			return fmt.Errorf("language %s is not available here (toolfold check says why), so its code cannot be checked", lang)
		}
		lim := sandbox.Limits{Timeout: checkTimeout, CPUTime: checkTimeout, MemoryBytes: sb.MemoryBytes,
			MaxFrameBytes: max(sb.MaxFrameBytes, 2*skills.MaxCodeBytes)}
		res, err := r.Run(ctx, sandbox.Request{Code: code, Language: lang, Check: true, Limits: lim,
			Require: sandbox.Require(sb.Require)}, noHost{})
		if err != nil {
			return err
		}
		if e := res.Err; e != nil {
			if e.Kind == "syntax" {
				return &skills.CodeError{Line: e.Line, Msg: e.Msg}
			}
			return errors.New(e.Msg)
		}
		return nil
	}
}

// noHost answers a check run, which calls nothing.
type noHost struct{}

func (noHost) Call(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return nil, &sandbox.ToolError{Msg: "no tool calls while checking code"}
}

func (noHost) Search(context.Context, string, string, int) (string, error) {
	return "", &sandbox.ToolError{Msg: "no searches while checking code"}
}
