package skillhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/skills"
)

// Provider offers the saved skills as the tools of one server,
// ServerName, so that search_tools ranks them with every other tool (and
// its server filter takes "skills"), passthrough and hybrid can expose
// them, and a script calls them as tools.skills.NAME (run.go).
//
// Servers must not block on I/O, so the provider keeps a snapshot of the
// store's list: read at start, after a save through this provider, and
// every Poll while the owner runs, which is how a skill saved by another
// replica on a shared store, or a folder a person added, appears.
type Provider struct {
	o   Options
	log *slog.Logger
	// full and quick are Poll and VersionPoll as New found them.
	full, quick time.Duration

	// reloading serializes reloads, so that a poll that read the store
	// before a save cannot install its older list after the save's.
	reloading sync.Mutex

	mu    sync.Mutex
	tools []*mcp.Tool
	list  []*skills.Skill // the skills behind tools, for the servers/ tree (Snapshot)
	sig   string          // the snapshot's names and descriptions, to tell a change
	err   string          // why the store could not be read, if it could not
	// lastVersion is the versioned store's last version read (poll).
	lastVersion string
	changed     func()
}

// Server is the skills' one server, as Servers lists it.
type Server struct {
	Name        string
	Description string
	Tools       []*mcp.Tool
	// Err says why the store could not be read, when no skill was read
	// before either: the server is down. "" when it is ready.
	Err string
}

// versioned is a skills store that can say, with one cheap read, whether
// any skill changed since it last said (skills.KV).
type versioned interface {
	Version(ctx context.Context) (string, error)
}

// Name is "skills", the provider's name in logs and telemetry.
func (sp *Provider) Name() string { return "skills" }

// Watch sets what is called, without the provider's locks held, whenever
// the skills read change.
func (sp *Provider) Watch(changed func()) {
	sp.mu.Lock()
	sp.changed = changed
	sp.mu.Unlock()
}

// Servers is the skills' server with the skills last read as its tools;
// none while there are no skills and the store could be read.
func (sp *Provider) Servers() []Server {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if len(sp.tools) == 0 && sp.err == "" {
		return nil // no skills yet: no server to list or describe
	}
	s := Server{Name: ServerName, Tools: sp.tools,
		Description: "scripts saved with skills.save, called like tools"}
	if sp.err != "" && len(sp.tools) == 0 {
		s.Err = sp.err
	}
	return []Server{s}
}

// Snapshot is the skills last read.
func (sp *Provider) Snapshot() []*skills.Skill {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	return sp.list
}

// reload reads the store's list; when it changed, the catalog is rebuilt.
// A store that cannot be read (Redis away) keeps the last list read, so a
// blip does not take every skill out of search.
func (sp *Provider) reload(ctx context.Context) {
	sp.reloading.Lock()
	defer sp.reloading.Unlock()
	list, err := sp.o.Store.List(ctx)
	msg := ""
	if err != nil && !errors.Is(err, skills.ErrNotFound) {
		msg = "cannot read the skills: " + err.Error()
		sp.log.Warn(msg+"; search keeps the skills last read", "component", "skills")
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

// poll reloads every Poll until ctx ends, and, with a versioned store,
// whenever its version changes (checked every VersionPoll).
func (sp *Provider) poll(ctx context.Context) {
	vs, _ := sp.o.Store.(versioned)
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
func (sp *Provider) version(ctx context.Context, vs versioned) string {
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
