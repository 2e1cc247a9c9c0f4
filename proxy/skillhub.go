package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/rewrite"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skillhost"
	"github.com/toolfold/toolfold/skills"
	"github.com/toolfold/toolfold/upstream"
)

// The proxy's side of package skillhost, which never imports proxy: the
// saved skills as a provider (skillsProvider), the runs of their code the
// proxy makes for them (skillHub, a skillhost.Hub: nested in the caller's
// run chain, policy.go), and a script's skills.save (SaveSkill) with
// what it may not save (skillRefusal).

// skillsProvider is the skills' provider among the proxy's providers.
type skillsProvider struct{ *skillhost.Provider }

var _ Provider = skillsProvider{}

// Servers is the skills' server, down when the store could not be read.
func (sp skillsProvider) Servers() []ProvidedServer {
	var out []ProvidedServer
	for _, s := range sp.Provider.Servers() {
		ps := ProvidedServer{Name: s.Name, Description: s.Description, State: upstream.StateReady, Tools: s.Tools}
		if s.Err != "" {
			ps.State, ps.Err = upstream.StateDown, s.Err
		}
		out = append(out, ps)
	}
	return out
}

// skillStore is where the saved skills are kept: Options.Skills; else the
// shared Store when the config names one, so replicas share their skills;
// else the files in the config's skills.dir.
func skillStore(cfg *config.Config, opts *Options) skills.Store {
	switch {
	case opts.Skills != nil:
		return opts.Skills
	case cfg.Store.URL != "" && opts.Store != nil:
		return skills.NewKV(opts.Store)
	}
	return skills.NewFiles(cfg.SkillsDir())
}

// runnerList is the runners in the order of p.langs.
func (p *Proxy) runnerList() []sandbox.Runner {
	out := make([]sandbox.Runner, 0, len(p.langs))
	for _, l := range p.langs {
		out = append(out, p.runners[l])
	}
	return out
}

// skillHub is the proxy's skillhost.Hub.
type skillHub struct{ p *Proxy }

var _ skillhost.Hub = skillHub{}

type callerKey struct{}

// withCaller is ctx for a skill call made by the script h runs.
func withCaller(ctx context.Context, h *scriptHost) context.Context {
	return context.WithValue(ctx, callerKey{}, h)
}

// callerOf is the script host of the script whose skill call ctx is for;
// one of ctx's session when none is known.
func (sh skillHub) callerOf(ctx context.Context) *scriptHost {
	if h, _ := ctx.Value(callerKey{}).(*scriptHost); h != nil {
		return h
	}
	return &scriptHost{p: sh.p, session: sessionOf(ctx)}
}

// RunSkill runs s's code nested in the run chain of ctx (a chain of its
// own outside any), with what the chain has left, for the caller's
// session; the values the skill's calls got count as the caller's.
func (sh skillHub) RunSkill(ctx context.Context, s *skills.Skill, runner sandbox.Runner, args json.RawMessage, onOutput func([]byte)) (*sandbox.Result, error) {
	p := sh.p
	frame := runFrameOf(ctx)
	if frame == nil { // a call from outside any run
		frame = runFrameOf(p.topFrame(ctx, s.Language, s.Code))
		frame.depth = -1
	}
	if frame.depth+1 > skillhost.MaxDepth {
		return nil, skillhost.Errorf(s.Name, "skills calling skills may nest %d deep; this call would be deeper", skillhost.MaxDepth)
	}
	left := frame.budget.left()
	if left <= 0 {
		return nil, skillhost.Errorf(s.Name, "no time left in the run (sandbox.timeout)")
	}
	lim := p.cfg.Sandbox.Limits
	lim.Timeout = left
	lim.CPUTime = min(lim.CPUTime, max(left, time.Second))
	lim.MaxToolCalls = int(max(frame.budget.calls.Load(), 1))
	nctx := withRunFrame(ctx, &runFrame{budget: frame.budget, depth: frame.depth + 1})
	nctx, span := p.tel.StartScript(nctx, s.Language, s.Code)
	caller := sh.callerOf(ctx)
	host := &scriptHost{p: p, lang: s.Language, session: caller.session}
	res, err := runner.Run(nctx, sandbox.Request{Code: s.Code, Language: s.Language, Limits: lim,
		Require: sandbox.Require(p.cfg.Sandbox.Require), Args: args, OnOutput: onOutput}, host)
	p.tel.EndScript(nctx, span, s.Language, res, err)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.log.Error("sandbox failed running a skill", "skill", s.Name, "err", err)
		return nil, skillhost.Errorf(s.Name, "could not run: %v", err)
	}
	caller.resultTokens.Add(host.resultTokens.Load())
	return res, nil
}

// Outside takes a run slot for a skill a client calls outside any script
// (passthrough, hybrid), and passes what it prints to the client as it
// runs when the client listens (progress.go), tokenized like a run's.
func (sh skillHub) Outside(ctx context.Context, name string, do func(context.Context, func([]byte))) error {
	p := sh.p
	release, _, err := p.slots.Acquire(ctx, sessionOf(ctx).workspace())
	if err != nil {
		return err
	}
	defer release()
	host := &scriptHost{p: p, session: sessionOf(ctx)}
	ctx = withCaller(ctx, host)
	var onOutput func([]byte)
	if pr := progressOf(ctx); pr != nil {
		pr.logger = "skills." + name
		onOutput = pr.start(func(s string) string { return p.pii.runOutput(ctx, host, s) })
		defer pr.stop() // before the answer: no progress after it
	}
	do(ctx, onOutput)
	return nil
}

var _ sandbox.SkillSaver = (*scriptHost)(nil)

// SaveSkill implements sandbox.SkillSaver: skills.save in a script, which
// may not save its session's tokens or personal data (skillRefusal).
func (h *scriptHost) SaveSkill(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	s := sessionOf(ctx)
	refuse := func(text string) string {
		return h.p.pii.skillRefusal(rewrite.FromContext(h.p.pii.scriptContext(ctx, h)), text)
	}
	return h.p.skills.Save(ctx, skillhost.Saver{Language: h.lang, OverHTTP: s != nil && s.id != "", Refuse: refuse}, params)
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
