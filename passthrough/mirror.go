package passthrough

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
)

// mirror keeps the client-facing server's prompts, resources, resource
// templates and (in passthrough and hybrid modes) tools in step with the
// upstreams'. Each is registered on the mcp.Server under its exposed name
// (names.go) with a handler that forwards to its upstream, so the SDK
// serves the lists, their pagination, and the list_changed notifications
// to every client session, whatever its protocol version.
//
// An upstream's lists are read when it connects and again when it sends
// notifications/prompts/list_changed or notifications/resources/list_changed.
// While an upstream is down its items stay listed and fail with its
// unavailable error, as its tools do.
type mirror struct {
	f *Forwarder

	mu      sync.Mutex
	lists   map[string]*upLists // by upstream
	running map[string]bool     // a re-list goroutine is running for the upstream
	dirty   map[string]bool     // re-list again when it ends

	// What is registered on the server, by exposed name or URI, with a
	// fingerprint of the definition to skip unchanged ones.
	prompts   map[string]owned
	resources map[string]owned
	templates map[string]owned
	tools     map[string]owned
	toolDefs  []*mcp.Tool // the upstream tools registered, as clients see them
}

// owned is a registered item: whose it is, and its definition's JSON.
type owned struct {
	named
	def string
}

// upLists is what one upstream session listed.
type upLists struct {
	cs        *mcp.ClientSession
	prompts   []*mcp.Prompt
	resources []*mcp.Resource
	templates []*mcp.ResourceTemplate
}

func newMirror(f *Forwarder) *mirror {
	return &mirror{f: f, lists: map[string]*upLists{}, running: map[string]bool{}, dirty: map[string]bool{},
		prompts: map[string]owned{}, resources: map[string]owned{}, templates: map[string]owned{}, tools: map[string]owned{}}
}

// Bounds on what one upstream may list.
const (
	maxListed    = 10000
	maxListPages = 1000
)

// kick re-lists upstream up in the background; kicks during a re-list
// coalesce into one more.
func (m *mirror) kick(up string) {
	m.mu.Lock()
	if m.running[up] {
		m.dirty[up] = true
		m.mu.Unlock()
		return
	}
	m.running[up] = true
	m.mu.Unlock()
	go func() {
		for {
			m.relist(up)
			m.mu.Lock()
			if !m.dirty[up] {
				m.running[up] = false
				m.mu.Unlock()
				return
			}
			m.dirty[up] = false
			m.mu.Unlock()
		}
	}()
}

// waitIdle waits until no re-list is running, or ctx ends.
func (m *mirror) waitIdle(ctx context.Context) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		m.mu.Lock()
		busy := false
		for _, r := range m.running {
			busy = busy || r
		}
		m.mu.Unlock()
		if !busy {
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// sessionChanged kicks every upstream whose session is not the one its
// lists came from; called on each pool change.
func (m *mirror) sessionChanged() {
	for _, s := range m.f.pool.Status() {
		cs, err := m.f.pool.Session(s.Name)
		if err != nil {
			continue
		}
		m.mu.Lock()
		l := m.lists[s.Name]
		stale := l == nil || l.cs != cs
		m.mu.Unlock()
		if stale {
			m.kick(s.Name)
		}
	}
}

// relist reads upstream up's prompts, resources and templates.
func (m *mirror) relist(up string) {
	f := m.f
	cs, err := f.pool.Session(up)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(f.life, f.timeout(up, false))
	defer cancel()
	l := &upLists{cs: cs}
	caps := &mcp.ServerCapabilities{}
	if init := cs.InitializeResult(); init != nil && init.Capabilities != nil {
		caps = init.Capabilities
	}
	if caps.Prompts != nil {
		l.prompts, err = listAll(ctx, func(c string) ([]*mcp.Prompt, string, error) {
			r, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Prompts, r.NextCursor, nil
		})
		m.warn(up, "prompts/list", err)
	}
	if caps.Resources != nil {
		l.resources, err = listAll(ctx, func(c string) ([]*mcp.Resource, string, error) {
			r, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.Resources, r.NextCursor, nil
		})
		m.warn(up, "resources/list", err)
		l.templates, err = listAll(ctx, func(c string) ([]*mcp.ResourceTemplate, string, error) {
			r, err := cs.ListResourceTemplates(ctx, &mcp.ListResourceTemplatesParams{Cursor: c})
			if err != nil {
				return nil, "", err
			}
			return r.ResourceTemplates, r.NextCursor, nil
		})
		m.warn(up, "resources/templates/list", err)
	}
	m.mu.Lock()
	old := m.lists[up]
	m.lists[up] = l
	m.mu.Unlock()
	if old == nil || old.cs != cs {
		f.sessionStarted(ctx, up, cs)
	}
	m.apply()
}

func (m *mirror) warn(up, what string, err error) {
	if err != nil && m.f.life.Err() == nil {
		m.f.log.Warn("listing an upstream's "+what+" failed; its items are not offered", "upstream", up, "err", err)
	}
}

// listAll reads every page, within the bounds above.
func listAll[T any](ctx context.Context, page func(cursor string) ([]T, string, error)) ([]T, error) {
	var all []T
	seen := map[string]bool{}
	cursor := ""
	for n := 1; ; n++ {
		items, next, err := page(cursor)
		if err != nil {
			return all, err
		}
		all = append(all, items...)
		switch {
		case next == "":
			return all, nil
		case len(all) > maxListed:
			return all[:maxListed], fmt.Errorf("over %d items; toolfold keeps the first %d", maxListed, maxListed)
		case n >= maxListPages || seen[next]:
			return all, fmt.Errorf("the upstream paginates endlessly (%d pages)", n)
		}
		seen[next] = true
		cursor = next
	}
}

// apply registers on the server what the upstreams list now, under the
// exposed names, and removes what they no longer list.
func (m *mirror) apply() {
	f := m.f
	m.mu.Lock()
	defer m.mu.Unlock()
	always := f.cfg.Expose.Namespace == config.NamespaceAlways
	order := f.pool.Status()

	// Prompts.
	var pItems []named
	var pDefs []*mcp.Prompt
	for _, s := range order {
		if l := m.lists[s.Name]; l != nil {
			for _, p := range l.prompts {
				if p != nil && p.Name != "" {
					pItems = append(pItems, named{s.Name, p.Name})
					pDefs = append(pDefs, p)
				}
			}
		}
	}
	names := exposeNames(pItems, always)
	want := map[string]owned{}
	for i, it := range pItems {
		cp := *pDefs[i]
		cp.Name = names[i]
		want[names[i]] = owned{it, fingerprint(&cp)}
		if have, ok := m.prompts[names[i]]; ok && have == want[names[i]] {
			continue
		}
		safely(f.log, "prompt "+it.orig, func() { f.server.AddPrompt(&cp, f.getPrompt(it)) })
	}
	f.server.RemovePrompts(gone(m.prompts, want)...)
	m.prompts = want

	// Resources and templates.
	var rItems []named
	var rDefs []*mcp.Resource
	var tItems []named
	var tDefs []*mcp.ResourceTemplate
	for _, s := range order {
		if l := m.lists[s.Name]; l != nil {
			for _, r := range l.resources {
				if r != nil && r.URI != "" {
					rItems = append(rItems, named{s.Name, r.URI})
					rDefs = append(rDefs, r)
				}
			}
			for _, t := range l.templates {
				if t != nil && t.URITemplate != "" {
					tItems = append(tItems, named{s.Name, t.URITemplate})
					tDefs = append(tDefs, t)
				}
			}
		}
	}
	uris := exposeURIs(rItems, always)
	wantR := map[string]owned{}
	for i, it := range rItems {
		cp := *rDefs[i]
		cp.URI = uris[i]
		wantR[uris[i]] = owned{it, fingerprint(&cp)}
		if have, ok := m.resources[uris[i]]; ok && have == wantR[uris[i]] {
			continue
		}
		safely(f.log, "resource "+it.orig, func() { f.server.AddResource(&cp, f.readHandler) })
	}
	f.server.RemoveResources(gone(m.resources, wantR)...)
	m.resources = wantR
	tmpls := exposeURIs(tItems, always)
	wantT := map[string]owned{}
	for i, it := range tItems {
		cp := *tDefs[i]
		cp.URITemplate = tmpls[i]
		wantT[tmpls[i]] = owned{it, fingerprint(&cp)}
		if have, ok := m.templates[tmpls[i]]; ok && have == wantT[tmpls[i]] {
			continue
		}
		safely(f.log, "resource template "+it.orig, func() { f.server.AddResourceTemplate(&cp, f.readHandler) })
	}
	f.server.RemoveResourceTemplates(gone(m.templates, wantT)...)
	m.templates = wantT

	m.applyTools(f.hub.Servers(), always)
}

// applyTools registers the tools clients see directly, every provider's
// (the upstreams', a skill's) alike: all of them with expose: passthrough,
// the pinned ones with expose: hybrid.
func (m *mirror) applyTools(order []Server, always bool) {
	f := m.f
	mode := f.cfg.Expose.Mode
	if mode == config.ExposeCode || mode == "" {
		return
	}
	pinned := map[string]bool{}
	for _, p := range f.cfg.Expose.Pin {
		pinned[p] = true
	}
	var items []named
	var defs []*mcp.Tool
	for _, s := range order {
		for _, t := range s.Tools {
			if t == nil || t.Name == "" {
				continue
			}
			if mode == config.ExposeHybrid && !pinned[s.Name+"."+t.Name] {
				continue
			}
			items = append(items, named{s.Name, t.Name})
			defs = append(defs, t)
		}
	}
	var reserved []string
	if mode == config.ExposeHybrid {
		reserved = []string{"search_tools", "run_script"}
	}
	names := exposeNames(items, always, reserved...)
	want := map[string]owned{}
	m.toolDefs = m.toolDefs[:0]
	for i, it := range items {
		cp := *defs[i]
		cp.Name = names[i]
		if cp.InputSchema == nil {
			cp.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		want[names[i]] = owned{it, fingerprint(&cp)}
		m.toolDefs = append(m.toolDefs, &cp)
		if have, ok := m.tools[names[i]]; ok && have == want[names[i]] {
			continue
		}
		safely(f.log, "tool "+it.orig, func() { f.server.AddTool(&cp, f.callTool(it)) })
	}
	f.server.RemoveTools(gone(m.tools, want)...)
	m.tools = want
}

// exposedTools returns the upstream tools clients see directly.
func (m *mirror) exposedTools() []*mcp.Tool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*mcp.Tool(nil), m.toolDefs...)
}

// owner finds the upstream item behind an exposed prompt name, resource
// URI or template.
func (m *mirror) owner(kind, exposed string) (named, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var o owned
	var ok bool
	switch kind {
	case "prompt":
		o, ok = m.prompts[exposed]
	case "resource":
		o, ok = m.resources[exposed]
	case "template":
		o, ok = m.templates[exposed]
	case "tool":
		o, ok = m.tools[exposed]
	}
	return o.named, ok
}

// templateList lists the registered templates: exposed template -> owner.
func (m *mirror) templateList() map[string]named {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]named, len(m.templates))
	for k, o := range m.templates {
		out[k] = o.named
	}
	return out
}

// exposedURI is the URI clients know for upstream up's uri.
func (m *mirror) exposedURI(up, uri string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	for exp, o := range m.resources {
		if o.up == up && o.orig == uri {
			return exp
		}
	}
	if m.f.cfg.Expose.Namespace == config.NamespaceAlways {
		return namespacedURI(up, uri)
	}
	return uri
}

func gone(have, want map[string]owned) []string {
	var out []string
	for k := range have {
		if _, ok := want[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

func fingerprint(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// WaitIdle waits until no upstream's prompts and resources are being
// listed, or ctx ends.
func (f *Forwarder) WaitIdle(ctx context.Context) { f.mirror.waitIdle(ctx) }

// ExposedTools returns the providers' tools clients see directly (expose:
// passthrough or hybrid), as they see them.
func (f *Forwarder) ExposedTools() []*mcp.Tool { return f.mirror.exposedTools() }

// ResourceOwner is the upstream behind an exposed resource URI; "" when
// none is known.
func (f *Forwarder) ResourceOwner(uri string) string {
	o, _ := f.mirror.owner("resource", uri)
	return o.up
}
