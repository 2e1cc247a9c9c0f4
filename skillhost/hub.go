package skillhost

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"

	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skills"
)

// ServerName is the namespace of saved skills: tools.skills.NAME.
const ServerName = "skills"

// MaxDepth bounds skills calling skills: a skill a top-level run calls
// is 1 deep, a skill it calls 2, and so on.
const MaxDepth = 4

// Poll is how often the skills store is read again for changes made
// elsewhere; VersionPoll how often a store that keeps a version
// (skills.KV, shared by replicas) is asked whether anything changed, so a
// skill saved through one replica is in every replica's search within
// about that long. New reads them once, so tests may change them between
// providers.
var (
	Poll        = 10 * time.Second
	VersionPoll = 250 * time.Millisecond
)

// Hub is what the skills ask of their owner (the proxy), which implements
// it: the run of a skill's code, which only the owner can make (its run
// chains and budgets, script hosts, telemetry, run slots and progress).
// Methods are called concurrently.
type Hub interface {
	// RunSkill runs s's code with args (checked against its parameters)
	// by runner, as a run nested in the run of ctx (the script that
	// called the skill) or, outside any, as a run of its own: within what
	// the run chain has left of its wall time and tool calls, at most
	// MaxDepth deep, for the calling script's session. onOutput is
	// sandbox.Request.OnOutput. An error is one for the model to read,
	// made with Errorf, or ctx's; the code's own failure is the result's.
	RunSkill(ctx context.Context, s *skills.Skill, runner sandbox.Runner, args json.RawMessage, onOutput func([]byte)) (*sandbox.Result, error)
	// Outside makes the call of skill name from outside any script
	// (passthrough, hybrid) a top-level run of its own: it takes a run
	// slot, then calls do with the run's ctx and, when the client asked
	// for progress or logs at info, onOutput, which passes what the run
	// prints to the client as it prints it (nil otherwise). The error is
	// the slot's, when none could be had; do has not run then.
	Outside(ctx context.Context, name string, do func(ctx context.Context, onOutput func([]byte))) error
}

// Options are what the skills are given by their owner (the proxy).
type Options struct {
	Store   skills.Store     // where the skills are kept
	Config  config.Skills    // who may save (skills.save)
	Sandbox config.Sandbox   // the limits and requirements a saved skill's code is compiled with
	Runners []sandbox.Runner // the runners served, in the owner's order
	Hub     Hub              // the owner's part: running a skill's code
	Life    context.Context  // ends when the owner shuts down; nil: never
	Logger  *slog.Logger     // nil: discard
}

// A Saver is the script that saves a skill (skills.save), as its owner
// describes it.
type Saver struct {
	Language string // the script's, the skill's when the request names none
	OverHTTP bool   // its client session came over HTTP (the stdio session did not)
	// Refuse says why text may not be saved in a skill (it holds a token
	// of the saver's session, or personal data), or "".
	Refuse func(text string) string
}

// New is the skills of o.Store as a provider. Start reads them.
func New(o Options) *Provider {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Life == nil {
		o.Life = context.Background()
	}
	return &Provider{o: o, log: o.Logger, full: Poll, quick: VersionPoll}
}

// Start reads the skills (bounded by 5 seconds) and, until the owner's
// life ends, reads them again every so often, for those saved elsewhere.
func (sp *Provider) Start(ctx context.Context) {
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	sp.reload(rctx)
	cancel()
	go sp.poll(sp.o.Life)
}

// runnerOf is the runner of lang among runners (the last, as the
// owner's map of them keeps), nil when lang is not served.
func runnerOf(runners []sandbox.Runner, lang string) sandbox.Runner {
	var r sandbox.Runner
	for _, c := range runners {
		if c.Language() == lang {
			r = c
		}
	}
	return r
}
