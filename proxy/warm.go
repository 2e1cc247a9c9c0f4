package proxy

import (
	"github.com/toolfold/toolfold/sandbox"
)

// defaultPrestart is sandbox.prestart when the config sets none: the
// languages whose waiting child holds 17 MiB (node's holds 46 MiB).
var defaultPrestart = []string{"lua", "python"}

// prestartOnSearch starts an HTTP session's first runs' children at its
// first search_tools: a session that searches is about to run a script,
// and one that only connects (a burst behind a load balancer, a health
// probe, a client listing tools) starts no sandbox. The stdio session,
// toolfold's one client, started them when it connected.
func (p *Proxy) prestartOnSearch(s *Session) {
	if s.id != "" {
		s.warmed.Do(func() { p.prestart(s) })
	}
}

// prestart starts, for a session, the children of its first
// runs in the languages of sandbox.prestart (defaultPrestart), so that
// its first run_script is as fast as its later ones: the workspace is made
// now rather than on the first run. Nothing is started when run_script is
// not exposed or a runner keeps no warm children (sandbox.warm: false).
// The runners bound how many children they keep, so many sessions at once
// cost no more memory than a few.
func (p *Proxy) prestart(s *Session) {
	if !p.exposesCode() {
		return
	}
	langs := p.cfg.Sandbox.Prestart
	if langs == nil {
		langs = defaultPrestart
	}
	var warmers []sandbox.Warmer
	for _, l := range langs {
		if w, ok := p.runners[l].(sandbox.Warmer); ok {
			warmers = append(warmers, w)
		}
	}
	if len(warmers) == 0 {
		return
	}
	tree, ok := p.trees.ready(s)
	if !ok {
		return // its servers/ tree is being written: called again once it is (codetree.go)
	}
	dir, err := p.workspaces.Get(s.ws)
	if err != nil {
		return // the session ended, or the proxy is closing: its first run will say why
	}
	req := sandbox.Request{Workdir: dir, Tree: tree, Limits: p.limits(), Require: sandbox.Require(p.cfg.Sandbox.Require)}
	for _, w := range warmers {
		w.Prestart(req)
	}
	if s.ctx.Err() != nil {
		// Ended meanwhile: its release may have forgotten the workspace
		// before the children above were kept.
		p.forgetWorkspace(dir)
	}
}
