package config

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/toolfold/toolfold/internal/glob"
)

// PIIFlow is one entry of pii.flows: where a value a token stands for may
// go. A token in a call's arguments is restored only where the flow from
// the tool whose result minted it to the tool called is allowed; the
// first rule that matches decides.
//
//	pii:
//	  flows:
//	    - {from: "crm.*", to: "mail.send_*", types: [EMAIL], action: allow}
//	    - {from: "*", to: "webhooks.*", action: deny}
//
// With no rule matching, a value goes back to the server it came from and
// a person is asked before it goes to another (denied where no person can
// be asked); a value the client typed (from: client) goes anywhere.
type PIIFlow struct {
	// From is a glob over the qualified tool whose result minted the
	// token (server.tool, skills.NAME) or "client" for a value the client
	// or its script typed. '*' matches any run of characters, '/' and '.'
	// included; '?' one character.
	From string
	// To is a glob over the qualified tool called (server.tool); reading a
	// resource is SERVER.resources/read, getting a prompt SERVER.prompts/get.
	To string
	// Types are the token types the rule covers (EMAIL, PHONE, a custom
	// detector's upper-cased name); empty covers every type.
	Types []string
	// Action is ActionAllow, ActionAsk or ActionDeny.
	Action string
	// Line is the rule's line in the file, for messages (0 when unknown).
	Line int
}

// FlowFromClient is PIIFlow.From for values the client or its script typed.
const FlowFromClient = "client"

var flowKeys = []string{"from", "to", "types", "action"}

// piiFlows decodes pii.flows. It returns each rule's types nodes, by the
// rule's index, for checkFlowTypes, which runs once the custom detectors
// are known.
func (d *decoder) piiFlows(n *yaml.Node, p string, pii *PII) (typeNodes [][]*yaml.Node) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, p, `must be a list of rules, like [{from: "crm.*", to: "mail.send_*", action: allow}]`)
		return nil
	}
	for i, item := range n.Content {
		r, types, ok := d.piiFlow(resolve(item), fmt.Sprintf("%s[%d]", p, i))
		typeNodes = append(typeNodes, types)
		if ok {
			pii.Flows = append(pii.Flows, r)
		}
	}
	return typeNodes
}

// piiFlow decodes one flow rule; ok is false when it had errors.
func (d *decoder) piiFlow(item *yaml.Node, ip string) (r PIIFlow, types []*yaml.Node, ok bool) {
	fs, ok := d.mapping(item, ip, "a map (from, to, types, action)")
	if !ok {
		return r, nil, false
	}
	r.Line = item.Line
	errs := len(d.errs)
	for _, f := range fs {
		fp := join(ip, f.name)
		switch f.name {
		case "from", "to":
			s, ok := d.str(f.val, fp)
			if !ok {
				continue
			}
			if msg := flowGlobProblem(s); msg != "" {
				d.errorf(f.val, fp, "%s", msg)
			}
			if f.name == "from" {
				r.From = s
			} else {
				r.To = s
			}
		case "types":
			types, _ = d.strList(f.val, fp)
			for _, t := range types {
				r.Types = append(r.Types, strings.ToUpper(strings.TrimSpace(t.Value)))
			}
		case "action":
			r.Action, _ = d.action(f.val, fp)
		default:
			d.errorf(f.key, fp, "%s", unknownKey(f.name, flowKeys))
		}
	}
	if len(d.errs) > errs {
		return r, types, false
	}
	if r.From == "" || r.To == "" || r.Action == "" {
		d.errorf(item, ip, `a flow rule needs from, to and action, like {from: "crm.*", to: "mail.send_*", action: allow}`)
		return r, types, false
	}
	return r, types, true
}

// flowGlobProblem says why s cannot match a qualified name, or "".
func flowGlobProblem(s string) string {
	if strings.TrimSpace(s) == "" {
		return `must be a glob over server.tool, like "crm.*" or "*" ("client" for values the client typed)`
	}
	if err := glob.Check(s); err != nil {
		return err.Error()
	}
	if s != FlowFromClient && !strings.Contains(s, ".") && !strings.ContainsAny(s, "*?") {
		return fmt.Sprintf("%q matches no tool: names are qualified server.tool; write %s.*, or *.%s", s, s, s)
	}
	return ""
}

// checkFlowTypes reports flow rules naming a token type no detector gives.
func (d *decoder) checkFlowTypes(p string, pii *PII, typeNodes [][]*yaml.Node) {
	known := slices.Clone(PIIBuiltinTypes)
	for _, c := range pii.Custom {
		known = append(known, strings.ToUpper(c.Name))
	}
	for i, nodes := range typeNodes {
		for j, n := range nodes {
			t := strings.ToUpper(strings.TrimSpace(n.Value))
			if slices.Contains(known, t) {
				continue
			}
			msg := fmt.Sprintf("no detector gives tokens of type %q; types are %s", n.Value, strings.Join(known, ", "))
			if s := suggest(t, known); s != "" {
				msg = fmt.Sprintf("no detector gives tokens of type %q; did you mean %q?", n.Value, s)
			}
			d.errorf(n, fmt.Sprintf("%s[%d].types[%d]", p, i, j), "%s", msg)
		}
	}
}

// checkFlowServers reports flow rules whose from or to names a server
// that is neither an upstream nor skills (nor, for from, client): they
// would never match.
func (d *decoder) checkFlowServers(n *yaml.Node, cfg *Config) {
	flows := lookup(n, "flows")
	if len(cfg.Upstreams) == 0 || flows == nil || flows.Kind != yaml.SequenceNode {
		return
	}
	names := []string{SkillsUpstream}
	for _, u := range cfg.Upstreams {
		names = append(names, u.Name)
	}
	for i, r := range flows.Content {
		for _, key := range []string{"from", "to"} {
			m := lookup(resolve(r), key)
			if m == nil || m.Kind != yaml.ScalarNode || (key == "from" && m.Value == FlowFromClient) {
				continue
			}
			if msg := unknownServer(m.Value, names); msg != "" {
				d.errorf(m, fmt.Sprintf("pii.flows[%d].%s", i, key), "%s", msg)
			}
		}
	}
}
