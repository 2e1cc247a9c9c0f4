package rewrite

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Lists served from a proxy's own registry (resources, templates, prompts
// mirrored from upstreams) are shared by every client session: the
// functions below return tokenized copies, for one session, and leave the
// registry's values as they are. Identifiers a client sends back to name an
// item (a prompt's name) are not tokenized; URIs are, since a tokenized
// URI read back is restored on its way upstream.

// ResourcesFor is a copy of res with each resource's URI, name, title and
// description tokenized. A nil vault returns res.
func (v *Vault) ResourcesFor(res *mcp.ListResourcesResult) *mcp.ListResourcesResult {
	return v.ResourcesFrom(res, nil)
}

// ResourcesFrom is ResourcesFor where what a resource's fields mint
// records origin(the resource) as its origin (the upstream that listed
// it); a nil origin mints with v's own.
func (v *Vault) ResourcesFrom(res *mcp.ListResourcesResult, origin func(*mcp.Resource) string) *mcp.ListResourcesResult {
	if v == nil || res == nil {
		return res
	}
	out := *res
	out.Resources = make([]*mcp.Resource, len(res.Resources))
	for i, r := range res.Resources {
		if r != nil {
			c := *r
			w := v
			if origin != nil {
				w = v.From(origin(r))
			}
			c.URI, c.Name, c.Title, c.Description = w.Tokenize(r.URI), w.Tokenize(r.Name), w.Tokenize(r.Title), w.Tokenize(r.Description)
			r = &c
		}
		out.Resources[i] = r
	}
	return &out
}

// TemplatesFor is a copy of res with each template's name, title and
// description tokenized; URI templates are patterns, left as they are.
func (v *Vault) TemplatesFor(res *mcp.ListResourceTemplatesResult) *mcp.ListResourceTemplatesResult {
	if v == nil || res == nil {
		return res
	}
	out := *res
	out.ResourceTemplates = make([]*mcp.ResourceTemplate, len(res.ResourceTemplates))
	for i, t := range res.ResourceTemplates {
		if t != nil {
			c := *t
			c.Name, c.Title, c.Description = v.Tokenize(t.Name), v.Tokenize(t.Title), v.Tokenize(t.Description)
			t = &c
		}
		out.ResourceTemplates[i] = t
	}
	return &out
}

// PromptsFor is a copy of res with each prompt's title, description and
// argument descriptions tokenized; names stay, prompts/get is by name.
func (v *Vault) PromptsFor(res *mcp.ListPromptsResult) *mcp.ListPromptsResult {
	if v == nil || res == nil {
		return res
	}
	out := *res
	out.Prompts = make([]*mcp.Prompt, len(res.Prompts))
	for i, p := range res.Prompts {
		if p != nil {
			c := *p
			c.Title, c.Description = v.Tokenize(p.Title), v.Tokenize(p.Description)
			c.Arguments = make([]*mcp.PromptArgument, len(p.Arguments))
			for j, a := range p.Arguments {
				if a != nil {
					ac := *a
					ac.Title, ac.Description = v.Tokenize(a.Title), v.Tokenize(a.Description)
					a = &ac
				}
				c.Arguments[j] = a
			}
			p = &c
		}
		out.Prompts[i] = p
	}
	return &out
}

// TokenizeComplete tokenizes completion values in place (the result was
// just decoded from the upstream).
func (v *Vault) TokenizeComplete(res *mcp.CompleteResult) {
	if v == nil || res == nil {
		return
	}
	for i, s := range res.Completion.Values {
		res.Completion.Values[i] = v.Tokenize(s)
	}
}

// Redact replaces every value d finds in s by its type in brackets
// ([EMAIL], [PHONE]): for text no session owns, such as an upstream's
// stderr, which toolfold quotes to every session and to its log. A nil
// detector returns s.
func (d *Detector) Redact(s string) string {
	if d == nil || s == "" {
		return s
	}
	spans := d.find(s, "", nil, false)
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.Start < last {
			continue
		}
		b.WriteString(s[last:sp.Start])
		b.WriteString("[" + sp.Type + "]")
		last = sp.End
	}
	b.WriteString(s[last:])
	return b.String()
}
