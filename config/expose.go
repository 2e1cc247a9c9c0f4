package config

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// Expose modes: what toolfold advertises to clients as tools.
const (
	// ExposeCode advertises search_tools and run_script only (the default).
	ExposeCode = "code"
	// ExposePassthrough advertises every upstream tool, as a classic
	// aggregator does, with names namespaced where they collide.
	ExposePassthrough = "passthrough"
	// ExposeHybrid advertises the two tools plus the tools listed in pin.
	ExposeHybrid = "hybrid"
)

// Namespace modes: when prompt names, resource URIs and (in passthrough
// and hybrid modes) tool names get their upstream's name added.
const (
	// NamespaceAuto adds it only to names two upstreams share, so a single
	// wrapped server looks exactly like itself (the default).
	NamespaceAuto = "auto"
	// NamespaceAlways adds it to every name.
	NamespaceAlways = "always"
)

// Expose is the top-level expose, pin and namespace settings of proxy.yaml.
type Expose struct {
	Mode      string   // ExposeCode (default), ExposePassthrough or ExposeHybrid
	Pin       []string // hybrid: qualified tool names "server.tool" also advertised as tools
	Namespace string   // NamespaceAuto (default) or NamespaceAlways
}

// DefaultExpose is the Expose of a config that sets none of the three keys.
var DefaultExpose = Expose{Mode: ExposeCode, Namespace: NamespaceAuto}

var (
	exposeModes    = []string{ExposeCode, ExposePassthrough, ExposeHybrid}
	namespaceModes = []string{NamespaceAuto, NamespaceAlways}
)

// exposeKey decodes one of the top-level keys expose, pin and namespace;
// it reports whether name was one of them.
func (d *decoder) exposeKey(f field, e *Expose) bool {
	switch f.name {
	case "expose":
		if s, ok := d.str(f.val, "expose"); ok {
			if !oneOf(s, exposeModes) {
				d.errorf(f.val, "expose", "must be one of %s, not %q", strings.Join(exposeModes, ", "), s)
			} else {
				e.Mode = s
			}
		}
	case "namespace":
		if s, ok := d.str(f.val, "namespace"); ok {
			if !oneOf(s, namespaceModes) {
				d.errorf(f.val, "namespace", "must be one of %s, not %q", strings.Join(namespaceModes, ", "), s)
			} else {
				e.Namespace = s
			}
		}
	case "pin":
		if isNull(f.val) {
			return true
		}
		items, _ := d.strList(f.val, "pin")
		for i, n := range items {
			if msg := pinProblem(n.Value); msg != "" {
				d.errorf(n, fmt.Sprintf("pin[%d]", i), "%s", msg)
				continue
			}
			e.Pin = append(e.Pin, n.Value)
		}
	default:
		return false
	}
	return true
}

// checkExpose reports settings that only make sense together.
func (d *decoder) checkExpose(root *yaml.Node, e *Expose, cfg *Config) {
	if len(e.Pin) > 0 && e.Mode != ExposeHybrid {
		d.warns = append(d.warns, &Error{File: d.file, Msg: fmt.Sprintf("pin lists %d tools but expose is %q: pinned tools are advertised only with expose: hybrid", len(e.Pin), e.Mode)})
	}
	names := map[string]bool{SkillsUpstream: true} // pin: [skills.NAME] exposes a saved skill
	for _, u := range cfg.Upstreams {
		names[u.Name] = true
	}
	for _, p := range e.Pin {
		server, _, _ := strings.Cut(p, ".")
		if len(cfg.Upstreams) > 0 && !names[server] {
			d.errs = append(d.errs, &Error{File: d.file, Msg: fmt.Sprintf("pin: %q names no upstream %q; write server.tool with a name from upstreams:", p, server)})
		}
	}
}

// pinProblem says why s is not a qualified tool name, or "".
func pinProblem(s string) string {
	server, tool, ok := strings.Cut(s, ".")
	if !ok || server == "" || tool == "" {
		return fmt.Sprintf("%q: write the qualified name server.tool, as search_tools shows it", s)
	}
	return ""
}

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}
