package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skills"
)

// skillServer is the namespace of saved skills: tools.skills.NAME.
const skillServer = "skills"

// skillProvider offers the saved skills as the tools of one server,
// "skills", so that search_tools ranks them with every other tool (and its
// server filter takes "skills"), passthrough and hybrid can expose them,
// and a script calls them as tools.skills.NAME (host.go runs them as nested
// runs, skillrun.go).
//
// Servers must not block on I/O, so the provider keeps a snapshot of the
// store's list: read at start, after a save through this proxy, and every
// skillPoll while the proxy runs, which is how a skill saved by another
// replica on a shared store, or a folder a person added, appears.
type skillProvider struct {
	p *Proxy
	// full and quick are skillPoll and skillVersionPoll as the proxy
	// started (read once, so tests may change them between proxies).
	full, quick time.Duration

	// reloading serializes reloads, so that a poll that read the store
	// before a save cannot install its older list after the save's.
	reloading sync.Mutex

	mu    sync.Mutex
	tools []*mcp.Tool
	list  []*skills.Skill // the skills behind tools, for the servers/ tree (codetree.go)
	sig   string          // the snapshot's names and descriptions, to tell a change
	err   string          // why the store could not be read, if it could not
	// lastVersion is the versioned store's last version read (poll).
	lastVersion string
	changed     func()
}

// skillPoll is how often the skills store is read again for changes made
// elsewhere; skillVersionPoll how often a store that keeps a version
// (skills.KV, shared by replicas) is asked whether anything changed, so a
// skill saved through one replica is in every replica's search within
// about that long.
var (
	skillPoll        = 10 * time.Second
	skillVersionPoll = 250 * time.Millisecond
)

// versioned is a skills store that can say, with one cheap read, whether
// any skill changed since it last said (skills.KV).
type versioned interface {
	Version(ctx context.Context) (string, error)
}

var _ Provider = (*skillProvider)(nil)

func (sp *skillProvider) Name() string { return "skills" }

func (sp *skillProvider) Watch(changed func()) {
	sp.mu.Lock()
	sp.changed = changed
	sp.mu.Unlock()
}

func (sp *skillProvider) Servers() []ProvidedServer {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.tools) == 0 && sp.err == "" {
		return nil // no skills yet: no server to list or describe
	}
	s := ProvidedServer{Name: skillServer, State: StateReady, Tools: sp.tools,
		Description: "scripts saved with skills.save, called like tools"}
	if sp.err != "" && len(sp.tools) == 0 {
		s.State, s.Err = StateDown, sp.err
	}
	return []ProvidedServer{s}
}

// snapshot is the skills last read.
func (sp *skillProvider) snapshot() []*skills.Skill {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.list
}

// reload reads the store's list; when it changed, the catalog is rebuilt.
// A store that cannot be read (Redis away) keeps the last list read, so a
// blip does not take every skill out of search.
func (sp *skillProvider) reload(ctx context.Context) {
	sp.reloading.Lock()
	defer sp.reloading.Unlock()
	list, err := sp.p.skills.List(ctx)
	msg := ""
	if err != nil && !errors.Is(err, skills.ErrNotFound) {
		msg = "cannot read the skills: " + err.Error()
		sp.p.log.Warn(msg+"; search keeps the skills last read", "component", "skills")
	}
	sp.mu.Lock()
	if msg != "" && len(list) == 0 && len(sp.tools) > 0 {
		sp.mu.Unlock()
		return
	}
	sp.mu.Unlock()
	tools := make([]*mcp.Tool, 0, len(list))
	var sig strings.Builder
	for _, s := range list {
		tools = append(tools, skillTool(s))
		fmt.Fprintf(&sig, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\n", s.Name, s.Description, s.Language, s.Parameters, s.Result, s.Code)
	}
	sp.mu.Lock()
	same := sig.String() == sp.sig && msg == sp.err
	if !same {
		sp.tools, sp.list, sp.sig, sp.err = tools, list, sig.String(), msg
	}
	changed := sp.changed
	sp.mu.Unlock()
	if !same && changed != nil {
		changed()
	}
}

// poll reloads every skillPoll until ctx ends, and, with a versioned
// store, whenever its version changes (checked every skillVersionPoll).
func (sp *skillProvider) poll(ctx context.Context) {
	vs, _ := sp.p.skills.(versioned)
	every := sp.full
	if vs != nil && sp.quick < every {
		every = sp.quick
	}
	t := time.NewTicker(every)
	defer t.Stop()
	last, lastFull := sp.version(ctx, vs), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			v := sp.version(ctx, vs)
			if time.Since(lastFull) < sp.full && v == last {
				continue
			}
			last, lastFull = v, time.Now()
			rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			sp.reload(rctx)
			cancel()
		}
	}
}

// version is the store's skills version, or the last one known when it
// cannot be read (a store blip does not cause a reload every tick).
func (sp *skillProvider) version(ctx context.Context, vs versioned) string {
	if vs == nil {
		return ""
	}
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	v, err := vs.Version(rctx)
	if err != nil {
		sp.mu.Lock()
		defer sp.mu.Unlock()
		return sp.lastVersion
	}
	sp.mu.Lock()
	sp.lastVersion = v
	sp.mu.Unlock()
	return v
}

// skillTool is a skill as a tool: its parameters the input schema, its
// result shape the output schema, marked as a skill in its description.
func skillTool(s *skills.Skill) *mcp.Tool {
	in := json.RawMessage(`{"type":"object"}`)
	if len(s.Parameters) > 0 {
		in = s.Parameters
	}
	t := &mcp.Tool{Name: s.Name, Title: "skill", InputSchema: in,
		Description: oneLine(s.Description) + " (saved skill, " + s.Language + ")"}
	if len(s.Result) > 0 {
		var m map[string]any
		if json.Unmarshal(s.Result, &m) == nil && m["type"] == "object" {
			t.OutputSchema = s.Result
		}
	}
	if n := oneLine(s.Notes); n != "" {
		t.Description += "\n\nNotes: " + n
	}
	return t
}

// oneLine collapses white space runs, newlines included, to single
// spaces. A skill's text is a model's: on one line, its notes cannot
// forge the lines of a search_tools listing (a tool name, its marks,
// "Parameters:") that every later session reads, as summary detail
// already ensured.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// CallTool runs a skill for a call made outside a script (passthrough,
// hybrid): a top-level run of its own, which takes a run slot. Its printed
// output comes before its value, and reaches the client as it runs when
// the request asked for progress or the client logs at info (progress.go).
func (sp *skillProvider) CallTool(ctx context.Context, server string, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	if server != skillServer {
		return nil, fmt.Errorf("no server named %q among the skills; search_tools lists the servers", server)
	}
	args, _ := json.Marshal(params.Arguments)
	if raw, ok := params.Arguments.(json.RawMessage); ok {
		args = raw
	}
	release, _, err := sp.p.slots.Acquire(ctx, sessionOf(ctx).workspace())
	if err != nil {
		return nil, err
	}
	defer release()
	host := &scriptHost{p: sp.p, session: sessionOf(ctx)}
	ctx, printed := sandbox.CaptureCallOutput(ctx)
	var onOutput func([]byte)
	if pr := progressOf(ctx); pr != nil {
		pr.logger = "skills." + params.Name
		onOutput = pr.start(func(s string) string { return sp.p.pii.runOutput(ctx, host, s) })
		defer pr.stop() // before the answer: no progress after it
	}
	v, err := sp.p.runSkill(ctx, host, params.Name, args, onOutput)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
	}
	text := printed() + string(v)
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	var structured map[string]any
	if json.Unmarshal(v, &structured) == nil && structured != nil {
		res.StructuredContent = structured
	}
	return res, nil
}
