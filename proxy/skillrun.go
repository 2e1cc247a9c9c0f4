package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skills"
)

// Calling a skill: tools.skills.NAME{...} in a script runs the skill as a
// run of its own, nested in the caller's:
//
//   - in its own language, whatever the caller's, with the arguments as
//     args, in a fresh directory (not the session's workspace);
//   - within what is left of the top-level run: its wall time and its tool
//     calls (counted across every nested run), so a skill cannot extend
//     the caller's limits;
//   - without a run slot: the caller holds one, so nested runs cannot
//     deadlock waiting for slots, however many sessions are busy;
//   - at most maxSkillDepth deep (a skill calling a skill ...);
//   - its printed output lands in the caller's output where the call
//     returns (sandbox.CallOutput), its return value is the call's
//     result, and its failure a catchable tool error naming the skill's
//     own file and line.

// maxSkillDepth bounds skills calling skills.
const maxSkillDepth = 4

// runBudget is what a top-level run and the skills it calls share.
type runBudget struct {
	run      runInfo      // the top-level run: its id, language and code hash (policy.go)
	deadline time.Time    // the top-level run's wall-clock end, but for pauses
	paused   atomic.Int64 // nanoseconds the run's clock was paused (a person deciding): added to deadline
	calls    atomic.Int64 // tool calls left
	limit    int          // sandbox.max_tool_calls
	pageAsks atomic.Int32 // approvals put to a person on the dashboard (observer.go)
}

// runFrame is one run's place in a chain of nested runs.
type runFrame struct {
	budget *runBudget
	depth  int // 0 for the top-level run
}

type runFrameKey struct{}

func withRunFrame(ctx context.Context, f *runFrame) context.Context {
	return context.WithValue(ctx, runFrameKey{}, f)
}

func runFrameOf(ctx context.Context) *runFrame {
	f, _ := ctx.Value(runFrameKey{}).(*runFrame)
	return f
}

// left is the wall time the run chain has left.
func (b *runBudget) left() time.Duration {
	return time.Until(b.deadline) + time.Duration(b.paused.Load())
}

// topFrame starts the budget of a top-level run of code in lang.
func (p *Proxy) topFrame(ctx context.Context, lang, code string) context.Context {
	b := &runBudget{deadline: time.Now().Add(p.cfg.Sandbox.Timeout), limit: p.cfg.Sandbox.MaxToolCalls,
		run: runInfo{id: newRunID(), lang: lang, codeHash: audit.CodeHash(code)}}
	b.calls.Store(int64(p.cfg.Sandbox.MaxToolCalls))
	return withRunFrame(ctx, &runFrame{budget: b})
}

// spendCall takes one tool call from the budget of ctx's run chain; an
// error when a nested chain has used them all.
func spendCall(ctx context.Context, name string) error {
	f := runFrameOf(ctx)
	if f == nil || f.budget.calls.Add(-1) >= 0 {
		return nil
	}
	return &sandbox.ToolError{Tool: name, Msg: fmt.Sprintf(
		"tool call limit of %d per run reached (the calls of the skills it ran count too); do more per call or raise sandbox.max_tool_calls",
		f.budget.limit)}
}

// skillFile names a skill's code file as its errors do: NAME/main.py.
func skillFile(s *skills.Skill) string { return s.Name + "/" + skills.CodeFile(s.Language) }

// runSkill runs skill name with args for a script whose call came with
// ctx. The value is the skill's return value (JSON null when none).
// onOutput, when set, sees what the skill prints as it prints it
// (sandbox.Request.OnOutput); nil for a skill a script called, whose
// output reaches the script's when the call returns.
func (p *Proxy) runSkill(ctx context.Context, caller *scriptHost, name string, args json.RawMessage, onOutput func([]byte)) (json.RawMessage, error) {
	toolErr := func(format string, a ...any) error {
		return &sandbox.ToolError{Tool: "skills." + name, Msg: "skills." + name + ": " + fmt.Sprintf(format, a...)}
	}
	s, err := p.skills.Get(ctx, name)
	if errors.Is(err, skills.ErrNotFound) {
		return nil, toolErr("no such skill (search_tools lists the skills with the tools)")
	} else if err != nil {
		p.log.Warn("cannot read a skill", "skill", name, "err", err)
		return nil, toolErr("cannot be read: %v", err)
	}
	if args, err = s.CheckArgs(args); err != nil {
		return nil, &sandbox.ToolError{Tool: "skills." + name, Msg: err.Error()}
	}
	runner := p.runners[s.Language]
	if runner == nil {
		return nil, toolErr("is written in %s, which is not available here (toolfold check says why)", s.Language)
	}
	frame := runFrameOf(ctx)
	if frame == nil { // a call from outside any run
		frame = runFrameOf(p.topFrame(ctx, s.Language, s.Code))
		frame.depth = -1
	}
	if frame.depth+1 > maxSkillDepth {
		return nil, toolErr("skills calling skills may nest %d deep; this call would be deeper", maxSkillDepth)
	}
	left := frame.budget.left()
	if left <= 0 {
		return nil, toolErr("no time left in the run (sandbox.timeout)")
	}
	lim := p.limits()
	lim.Timeout = left
	lim.CPUTime = min(lim.CPUTime, max(left, time.Second))
	lim.MaxToolCalls = int(max(frame.budget.calls.Load(), 1))
	nctx := withRunFrame(ctx, &runFrame{budget: frame.budget, depth: frame.depth + 1})
	nctx, span := p.tel.StartScript(nctx, s.Language, s.Code)
	host := &scriptHost{p: p, lang: s.Language, session: caller.session}
	res, err := runner.Run(nctx, sandbox.Request{Code: s.Code, Language: s.Language, Limits: lim,
		Require: sandbox.Require(p.cfg.Sandbox.Require), Args: args, OnOutput: onOutput}, host)
	p.tel.EndScript(nctx, span, s.Language, res, err)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		p.log.Error("sandbox failed running a skill", "skill", name, "err", err)
		return nil, toolErr("could not run: %v", err)
	}
	caller.resultTokens.Add(host.resultTokens.Load())
	if res.Output != "" {
		sandbox.CallOutput(ctx, res.Output)
	}
	if e := res.Err; e != nil {
		where := skillFile(s)
		if e.Line > 0 {
			where += ":" + fmt.Sprint(e.Line)
		}
		return nil, &sandbox.ToolError{Tool: "skills." + name, Msg: "skills." + name + " failed: " + where + ": " + e.Msg}
	}
	if len(res.Value) == 0 {
		return json.RawMessage("null"), nil
	}
	return res.Value, nil
}

// skillName is NAME when name calls a skill (skills.NAME), else "".
func skillName(name string) string {
	if rest, ok := strings.CutPrefix(name, "skills."); ok && !strings.Contains(rest, ".") {
		return rest
	}
	return ""
}
