package rewrite

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ToolsFor is a copy of res with what an upstream wrote about each tool
// tokenized: its title and description, its annotations' title, and the
// descriptions, titles, defaults, examples, enums and consts of its input
// and output schemas. Names stay (tools/call is by name), and so do the
// schemas' property names and types. A nil vault returns res; tools with
// nothing to tokenize are shared with res, not copied.
func (v *Vault) ToolsFor(res *mcp.ListToolsResult) *mcp.ListToolsResult {
	if v == nil || res == nil {
		return res
	}
	out := *res
	out.Tools = make([]*mcp.Tool, len(res.Tools))
	for i, t := range res.Tools {
		out.Tools[i] = v.toolFor(t)
	}
	return &out
}

// toolFor is t tokenized, a copy; t itself when nothing in it changes.
func (v *Vault) toolFor(t *mcp.Tool) *mcp.Tool {
	if t == nil {
		return nil
	}
	c := *t
	changed := false
	tok := func(s string) string {
		out := v.Tokenize(s)
		changed = changed || out != s
		return out
	}
	c.Title, c.Description = tok(t.Title), tok(t.Description)
	if a := t.Annotations; a != nil && a.Title != "" {
		ac := *a
		ac.Title = tok(a.Title)
		c.Annotations = &ac
	}
	if s, ok := v.schemaFor(t.InputSchema); ok {
		c.InputSchema, changed = s, true
	}
	if s, ok := v.schemaFor(t.OutputSchema); ok {
		c.OutputSchema, changed = s, true
	}
	if !changed {
		return t
	}
	return &c
}

// schemaText are the schema keywords whose values are prose or sample
// data a person wrote, not structure: what ToolsFor tokenizes.
var schemaText = map[string]bool{"description": true, "title": true, "default": true, "examples": true, "enum": true, "const": true}

// schemaFor is schema (any JSON-shaped value) with its schemaText values
// tokenized, as JSON, and true; false when nothing changed, or schema is
// not JSON.
func (v *Vault) schemaFor(schema any) (json.RawMessage, bool) {
	if schema == nil {
		return nil, false
	}
	raw, ok := schema.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(schema)
		if err != nil {
			return nil, false
		}
		raw = b
	}
	if len(v.det.Find(string(raw), nil)) == 0 {
		return nil, false // the common case: nothing to find anywhere in it
	}
	var x any
	if json.Unmarshal(raw, &x) != nil {
		return nil, false
	}
	y, changed := v.schemaValue(x)
	if !changed {
		return nil, false
	}
	b, err := json.Marshal(y)
	if err != nil {
		return nil, false
	}
	return b, true
}

// schemaValue walks a decoded schema, tokenizing the values of the
// schemaText keywords; it reports whether anything changed.
func (v *Vault) schemaValue(x any) (any, bool) {
	changed := false
	switch x := x.(type) {
	case map[string]any:
		for k, e := range x {
			if schemaText[k] {
				if t := v.TokenizeValue(e); mustJSON(t) != mustJSON(e) {
					x[k], changed = t, true
				}
				continue
			}
			if y, ch := v.schemaValue(e); ch {
				x[k], changed = y, true
			}
		}
	case []any:
		for i, e := range x {
			if y, ch := v.schemaValue(e); ch {
				x[i], changed = y, true
			}
		}
	}
	return x, changed
}

func mustJSON(x any) string {
	b, _ := json.Marshal(x)
	return string(b)
}
