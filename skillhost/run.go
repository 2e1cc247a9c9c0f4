package skillhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skills"
)

// Calling a skill: tools.skills.NAME{...} in a script runs the skill as a
// run of its own, nested in the caller's (the owner makes it: Hub.RunSkill):
//
//   - in its own language, whatever the caller's, with the arguments as
//     args, in a fresh directory (not the session's workspace);
//   - within what is left of the top-level run: its wall time and its tool
//     calls (counted across every nested run), so a skill cannot extend
//     the caller's limits;
//   - without a run slot: the caller holds one, so nested runs cannot
//     deadlock waiting for slots, however many sessions are busy;
//   - at most MaxDepth deep (a skill calling a skill ...);
//   - its printed output lands in the caller's output where the call
//     returns (sandbox.CallOutput), its return value is the call's
//     result, and its failure a catchable tool error naming the skill's
//     own file and line.

// Called is NAME when a script's tool name calls a skill (skills.NAME),
// else "".
func Called(name string) string {
	if rest, ok := strings.CutPrefix(name, ServerName+"."); ok && !strings.Contains(rest, ".") {
		return rest
	}
	return ""
}

// Errorf is a failure of a call of skill name the calling script may
// catch: "skills.NAME: " and the message.
func Errorf(name, format string, a ...any) error {
	return &sandbox.ToolError{Tool: "skills." + name, Msg: "skills." + name + ": " + fmt.Sprintf(format, a...)}
}

// Call runs skill name with args for the script whose call came with ctx
// (Hub.RunSkill nests it in that script's run). The value is the skill's
// return value (JSON null when none); a failure is a *sandbox.ToolError
// the script may catch, or ctx's error.
func (sp *Provider) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	return sp.run(ctx, name, args, nil)
}

// run runs skill name with args. onOutput, when set, sees what the skill
// prints as it prints it (sandbox.Request.OnOutput); nil for a skill a
// script called, whose output reaches the script's when the call returns.
func (sp *Provider) run(ctx context.Context, name string, args json.RawMessage, onOutput func([]byte)) (json.RawMessage, error) {
	s, err := sp.o.Store.Get(ctx, name)
	if errors.Is(err, skills.ErrNotFound) {
		return nil, Errorf(name, "no such skill (search_tools lists the skills with the tools)")
	} else if err != nil {
		sp.log.Warn("cannot read a skill", "skill", name, "err", err)
		return nil, Errorf(name, "cannot be read: %v", err)
	}
	if args, err = s.CheckArgs(args); err != nil {
		return nil, &sandbox.ToolError{Tool: "skills." + name, Msg: err.Error()}
	}
	runner := runnerOf(sp.o.Runners, s.Language)
	if runner == nil {
		return nil, Errorf(name, "is written in %s, which is not available here (toolfold check says why)", s.Language)
	}
	res, err := sp.o.Hub.RunSkill(ctx, s, runner, args, onOutput)
	if err != nil {
		return nil, err
	}
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

// skillFile names a skill's code file as its errors do: NAME/main.py.
func skillFile(s *skills.Skill) string { return s.Name + "/" + skills.CodeFile(s.Language) }

// CallTool runs a skill for a call made outside a script (passthrough,
// hybrid): a top-level run of its own, which takes a run slot
// (Hub.Outside). Its printed output comes before its value, and reaches
// the client as it runs when the request asked for progress or the
// client logs at info.
func (sp *Provider) CallTool(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if server != ServerName {
		return nil, fmt.Errorf("no server named %q among the skills; search_tools lists the servers", server)
	}
	args, _ := json.Marshal(params.Arguments)
	if raw, ok := params.Arguments.(json.RawMessage); ok {
		args = raw
	}
	var text string
	var v json.RawMessage
	var err error
	slotErr := sp.o.Hub.Outside(ctx, params.Name, func(rctx context.Context, onOutput func([]byte)) {
		rctx, printed := sandbox.CaptureCallOutput(rctx)
		v, err = sp.run(rctx, params.Name, args, onOutput)
		text = printed()
	})
	if slotErr != nil {
		return nil, slotErr
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text + string(v)}}}
	var structured map[string]any
	if json.Unmarshal(v, &structured) == nil && structured != nil {
		res.StructuredContent = structured
	}
	return res, nil
}
