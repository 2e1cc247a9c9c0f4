package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// Runner runs one script. Implementations: the Lua runner (a re-executed
// child of the proxy binary), Python and JavaScript (an interpreter in a
// sandboxed child); each Language's New builds one.
type Runner interface {
	// Language is the run_script language name this runner serves ("lua").
	Language() string
	// Run executes req.Code under req.Limits. Tool calls and searches made
	// by the script go to host. A script failure (syntax, runtime, timeout,
	// limit) is reported in Result.Err, not as the returned error; the
	// returned error is for failures of the runner itself (cannot start the
	// child, say).
	Run(ctx context.Context, req Request, host Host) (*Result, error)
}

// FileLess is a Runner whose scripts have no file or process API (Lua): a
// run cannot change its workspace, so the caller need not watch or measure
// the workspace's size around it (a walk of the whole tree).
type FileLess interface {
	Runner
	NoFiles() bool
}

// Warmer is a Runner that can keep a child started ahead of the next run
// (the Warm option): when a run ends it starts the child for the next run
// of the same Request.Workdir and Limits, which then writes its run frame
// to that child instead of starting one. See warm.go.
type Warmer interface {
	Runner
	// Forget stops the children kept for runs in workdir. Call it before
	// the workdir is removed or handed to another owner.
	Forget(workdir string)
	// Prestart starts, in the background, the child of a first run of
	// req's Workdir and Limits, as the end of a run does for the next one:
	// a session's first run then finds it ready. Nothing happens without
	// the Warm option, for a run that could not use it, or when as many
	// children are kept as the runner keeps.
	Prestart(req Request)
	// Close stops every kept child and keeps no more; Run still works,
	// starting each child cold.
	Close() error
}

// Host is what a script can reach: implemented by the proxy.
type Host interface {
	// Call invokes a tool by the name the script used: a qualified name
	// "server.tool" or the identifier path "server_ident.tool_ident".
	// args is a JSON object (or null). It returns the value the script
	// sees (JSON). A *ToolError return is raised in the script as a
	// catchable error carrying its message.
	Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)
	// Search runs search_tools on behalf of the script and returns the
	// rendered text the tool would return.
	Search(ctx context.Context, query string, detail string, limit int) (string, error)
}

// ToolError is a failure the script may catch: the upstream said isError,
// the tool is unknown, a limit on calls was hit, the upstream is down.
type ToolError struct {
	Tool string // name as the script wrote it
	Msg  string // the message the script sees
}

func (e *ToolError) Error() string { return e.Msg }

// Request is one run.
type Request struct {
	Code     string
	Language string
	Limits   Limits
	// Workdir is the host directory bound read-write at /workspace in the
	// sandbox (the child's working directory without one); empty means a
	// fresh bounded tmpfs (a temporary directory without the sandbox),
	// gone after the run.
	Workdir string
	// Tree, when set, is a host directory holding the generated code API
	// (package codeapi): its servers/ and skills/ are bound read-only at
	// /workspace/servers and /workspace/skills, where the script lists,
	// reads and imports them (Python import, JavaScript import or require,
	// Lua require). It is never copied; without the sandbox's mount
	// namespace (a degraded sandbox) it is not offered.
	Tree string
	// Require is the sandbox.require policy; empty means RequireDegraded.
	// A run the policy refuses returns an error saying what to fix.
	Require Require
	// Args, when set, must be a JSON object: the script sees it as the
	// global args (a Lua table, a Python dict, a JavaScript object), as a
	// saved skill does. Nil leaves args undefined.
	Args json.RawMessage
	// Check compiles Code as a run would and ends without running it: a
	// syntax error is Result.Err (Kind "syntax"), success a Result without
	// Err or Value. Checking a skill's code uses it.
	Check bool
	// OnDone, when set, is called once, as soon as the script has said it
	// is done, with the run's result: what it printed before (and what
	// other processes of the run printed until they were stopped), its
	// value or error. Every process of the run has been sent SIGSTOP by
	// then (its process group and its cgroups; without cgroups, a process
	// that left the group runs on until it dies with the sandbox's init,
	// killed just after), so no code of the script runs after it: a caller
	// may answer with the result, and the processes are killed 2 ms after
	// OnDone returns. Run still returns only once they have ended, with the
	// same *Result, which the caller must not change before then. It is not
	// called for a run that ends any other way (killed, timed out, crashed).
	OnDone func(*Result)
	// OnOutput, when set, is called with each piece of output the run
	// keeps (what Result.Output will hold, not what is cut past
	// Limits.OutputBytes), as the script prints it: a caller can show a
	// long run's progress. Calls come one at a time, in order, and all
	// before OnDone and before Run returns; p is valid only during the
	// call. It holds up the reading of the script's output, so it must
	// return quickly (copy p and hand it on).
	OnOutput func(p []byte)
}

// Limits bound one run. Zero values mean the defaults in DefaultLimits.
type Limits struct {
	Timeout        time.Duration // wall clock; the child is killed past it
	CPUTime        time.Duration // RLIMIT_CPU (rounded up to seconds)
	MemoryBytes    int64         // RLIMIT_DATA of the child, and Go's soft memory limit inside it
	OutputBytes    int64         // printed output kept; the rest is cut with a notice
	MaxToolCalls   int           // tool calls per run
	MaxConcurrency int           // tool calls in flight at once
	MaxFrameBytes  int           // one bridge frame, either direction
	OpenFiles      int           // RLIMIT_NOFILE
	FileBytes      int64         // RLIMIT_FSIZE
	Processes      int           // RLIMIT_NPROC (per uid; best effort as root)
}

// DefaultLimits are used for every zero field of Limits.
var DefaultLimits = Limits{
	Timeout:        30 * time.Second,
	CPUTime:        30 * time.Second,
	MemoryBytes:    512 << 20,
	OutputBytes:    64 << 10,
	MaxToolCalls:   200,
	MaxConcurrency: 8,
	MaxFrameBytes:  16 << 20,
	OpenFiles:      64,
	FileBytes:      64 << 20,
	Processes:      64,
}

// Result is the outcome of a run.
type Result struct {
	Output      string          // what the script printed, capped, with a truncation notice when cut
	Value       json.RawMessage // the script's return value as JSON; nil when it returned nothing
	Err         *ScriptError    // nil when the script succeeded
	ToolCalls   int             // tool calls made (successful or not)
	ResultBytes int64           // bytes of tool results delivered into the script
	Duration    time.Duration
	// PendingStopped: the script's code had ended and the run was waiting
	// for its pending work (node's timers and I/O, Python's non-daemon
	// threads) when a limit (Err) stopped it.
	PendingStopped bool
}

// ScriptError is a script failure the model can act on.
type ScriptError struct {
	Kind string // "syntax", "runtime", "timeout", "memory", "cpu", "output", "limit", "killed"
	Line int    // 0 when unknown
	Msg  string
}

// Error renders "script:LINE: message" (or "script: message" with no line).
func (e *ScriptError) Error() string {
	if e.Line > 0 {
		return "script:" + itoa(e.Line) + ": " + e.Msg
	}
	return "script: " + e.Msg
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// SkillSaver is a Host that can save skills: a script's skills.save
// (the bridge's save_skill request) reaches it with the script's fields
// as a JSON object (name, description, language, code, parameters,
// result, notes, overwrite). A Host without it answers the script that
// skills cannot be saved here. The result is what skills.save returns.
type SkillSaver interface {
	SaveSkill(ctx context.Context, params json.RawMessage) (json.RawMessage, error)
}

// maxCallOutput bounds the text CallOutput keeps for one call.
const maxCallOutput = 1 << 20

type callOutputKey struct{}

// callOutput collects CallOutput's text for one request.
type callOutput struct {
	mu  sync.Mutex
	buf []byte
	cut int
}

// CallOutput adds text to what the script prints when the call made with
// ctx (a Host.Call's) returns, before its result: a skill that call ran
// printed it. Text past 1 MiB a call is cut with a notice. Outside a
// script's call it does nothing.
func CallOutput(ctx context.Context, text string) {
	o, _ := ctx.Value(callOutputKey{}).(*callOutput)
	if o == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	room := maxCallOutput - len(o.buf)
	if len(text) > room {
		o.cut += len(text) - max(room, 0)
		text = string(trimPartialRune([]byte(text[:max(room, 0)])))
	}
	o.buf = append(o.buf, text...)
}

func (o *callOutput) text() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.cut > 0 {
		return string(o.buf) + fmt.Sprintf("\n[output of the call truncated: %d more bytes not shown]\n", o.cut)
	}
	return string(o.buf)
}

// CaptureCallOutput returns a context whose CallOutput is kept, and the
// function that returns what was kept: for a skill run outside any
// script's call (a passthrough tools/call), whose printed output has no
// script output to land in.
func CaptureCallOutput(ctx context.Context) (context.Context, func() string) {
	o := &callOutput{}
	return context.WithValue(ctx, callOutputKey{}, o), o.text
}
