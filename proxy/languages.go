package proxy

import (
	"slices"
	"strings"

	"github.com/toolfold/toolfold/sandbox"
)

// defaultLanguage is the language of a run_script or search_tools call
// that names none: the first of sandbox.Languages (Lua) that is served.
func (p *Proxy) defaultLanguage() sandbox.Language {
	all := sandbox.Languages()
	for _, l := range all {
		if slices.Contains(p.langs, l.Name) {
			return l
		}
	}
	if len(p.langs) > 0 {
		if l, ok := sandbox.LookupLanguage(p.langs[0]); ok {
			return l
		}
		return sandbox.Language{Name: p.langs[0], Title: p.langs[0]}
	}
	return all[0]
}

// runHelp is the part of run_script's description that says how a script
// calls a tool: the default language's words after "Call: ", then each
// other served language's, in sandbox.Languages' order. The words are the
// languages' own (sandbox.Language.Help), which match their preludes.
func (p *Proxy) runHelp(def sandbox.Language) string {
	var b strings.Builder
	b.WriteString("Call: " + def.Help)
	for _, l := range sandbox.Languages() {
		if l.Name != def.Name && slices.Contains(p.langs, l.Name) {
			b.WriteString(` language "` + l.Name + `": ` + l.Help)
		}
	}
	return b.String()
}

// workspaceHelp tells the model, when a language that can open files is
// offered, that its runs share a working directory that keeps its files.
// Lua has no file functions, so a Lua-only proxy says nothing.
func (p *Proxy) workspaceHelp() string {
	for _, l := range sandbox.Languages() {
		if l.Interpreter != "" && slices.Contains(p.langs, l.Name) {
			return "Files a run writes in its working directory persist between runs in this session. "
		}
	}
	return ""
}
