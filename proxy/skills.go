package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/rewrite"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skills"
)

// Saved skills: a script's skills.save reaches scriptHost.SaveSkill, which
// checks who may save (skills.save in proxy.yaml), refuses the session's
// PII tokens and raw personal data (skillRefusal), compiles the code in the sandbox and keeps the skill in the
// store (skills.dir by default), shared by every session.

var _ sandbox.SkillSaver = (*scriptHost)(nil)

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

// SaveSkill implements sandbox.SkillSaver: skills.save in a script.
func (h *scriptHost) SaveSkill(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	fail := func(format string, args ...any) (json.RawMessage, error) {
		return nil, &sandbox.ToolError{Tool: "skills.save", Msg: "skills.save: " + fmt.Sprintf(format, args...)}
	}
	p := h.p
	if why := p.saveRefusal(ctx); why != "" {
		return fail("%s", why)
	}
	var req saveRequest
	if err := json.Unmarshal(params, &req); err != nil {
		return fail(`expected {name, description, language, code, parameters, result, notes, overwrite}: %v`, err)
	}
	if req.Language == "" {
		req.Language = h.lang
	}
	s := &skills.Skill{Name: req.Name, Description: req.Description, Language: req.Language, Code: req.Code,
		Parameters: nullToNil(req.Parameters), Result: nullToNil(req.Result), Notes: req.Notes}
	vault := rewrite.FromContext(p.pii.scriptContext(ctx, h))
	err := skills.Save(ctx, p.skills, s, &skills.SaveOptions{
		Overwrite: req.Overwrite,
		Compile:   CompileCheck(p.cfg.Sandbox, p.runnerList()),
		Refuse:    func(text string) string { return p.pii.skillRefusal(vault, text) },
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return fail("%v", err)
	}
	p.log.Info("skill saved", "skill", s.Name, "language", s.Language)
	p.skillsChanged()
	return json.Marshal(map[string]any{"saved": "skills." + s.Name, "language": s.Language,
		"call": "tools.skills." + s.Name})
}

// saveRefusal says why the session of ctx may not save skills, or "".
func (p *Proxy) saveRefusal(ctx context.Context) string {
	s := sessionOf(ctx)
	http := s != nil && s.id != "" // the stdio session has no id
	if p.cfg.Skills.MaySave(http) {
		return ""
	}
	if p.cfg.Skills.NoSave {
		return "saving skills is off here (skills.save: false in proxy.yaml); the user adds them with toolfold skills add"
	}
	return "saving skills is off over HTTP: every session shares them, so one client could plant code that another's scripts run; " +
		"the user can allow it with skills.save: true in proxy.yaml"
}

// skillRefusal says why text may not be saved in a skill, or "": it holds
// a token of vault (tokenRefusal), or a value the detector finds. A raw
// value is refused rather than tokenized: a skill is shown to, and run by,
// every later session, where this session's token would mean nothing, and
// a token in code would silently change what the code does. The answer
// names the value's type and place, never the value.
func (s *piiState) skillRefusal(v *rewrite.Vault, text string) string {
	if why := tokenRefusal(v, text); why != "" || s == nil {
		return why
	}
	spans := s.det.Find(text, nil)
	if len(spans) == 0 {
		return ""
	}
	sp := spans[0]
	line := 1 + strings.Count(text[:sp.Start], "\n")
	col := 1 + utf8.RuneCountInString(text[strings.LastIndexByte(text[:sp.Start], '\n')+1:sp.Start])
	return fmt.Sprintf("holds personal data (%s at line %d, column %d), which would be written to the skill store and shown to every later session; "+
		"make the value an argument (parameters) and pass it in the call", sp.Type, line, col)
}

// SkillRefusal is skills.SaveOptions.Refuse for a skill a person adds
// (toolfold skills add): personal data cfg detects is refused as in a
// script's skills.save, since the store is read by every session. Nil when
// PII rewriting is off.
func SkillRefusal(cfg config.PII) func(text string) string {
	s := newPIIState(cfg, nil)
	if s == nil {
		return nil
	}
	return func(text string) string {
		if why := s.skillRefusal(nil, text); why != "" {
			return why + "; or, if it is nobody's personal data, list it in pii.allow"
		}
		return ""
	}
}

// tokenRE matches the shape of a PII token: [EMAIL_1], [PHONE_12].
var tokenRE = regexp.MustCompile(`\[[A-Z][A-Z0-9_]*_[0-9]+\]`)

// tokenRefusal says why text may not be saved: it holds a token of vault
// (a value this session saw as a token, which means nothing in another
// session), or "".
func tokenRefusal(v *rewrite.Vault, text string) string {
	if v == nil {
		return ""
	}
	for _, tok := range tokenRE.FindAllString(text, -1) {
		if v.Detokenize(tok) != tok {
			return fmt.Sprintf("holds %s, a token standing for this session's personal data, which means nothing in another session; "+
				"make the value an argument (parameters) and pass it in the call", tok)
		}
	}
	return ""
}

func nullToNil(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return raw
}

// runnerList is the runners in the order of p.langs.
func (p *Proxy) runnerList() []sandbox.Runner {
	out := make([]sandbox.Runner, 0, len(p.langs))
	for _, l := range p.langs {
		out = append(out, p.runners[l])
	}
	return out
}

// skillsChanged is called after a skill is saved through this proxy: the
// skills provider reads the list again, and the catalog follows.
func (p *Proxy) skillsChanged() {
	ctx, cancel := context.WithTimeout(p.life, 5*time.Second)
	defer cancel()
	p.skillTools.reload(ctx)
}

// checkTimeout bounds compiling a skill's code.
const checkTimeout = 20 * time.Second

// CompileCheck is skills.SaveOptions.Compile for runners: the code compiled
// by its language's runner, inside the sandbox (sandbox.Request.Check),
// without running it. A syntax error is a *skills.CodeError.
func CompileCheck(sb config.Sandbox, runners []sandbox.Runner) func(ctx context.Context, lang, code string) error {
	return func(ctx context.Context, lang, code string) error {
		var r sandbox.Runner
		for _, c := range runners {
			if c.Language() == lang {
				r = c
			}
		}
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
