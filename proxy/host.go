package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/toolfold/toolfold/internal/tokens"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/internal/coerce"
	"github.com/toolfold/toolfold/internal/learn"
	"github.com/toolfold/toolfold/internal/mcptext"
	"github.com/toolfold/toolfold/rewrite"
	"github.com/toolfold/toolfold/sandbox"
	"github.com/toolfold/toolfold/skillhost"
)

// scriptHost is what a running script reaches through the bridge; lang is
// the script's language, in which search_tools(...) spells signatures.
type scriptHost struct {
	p       *Proxy
	lang    string
	session *Session // the client session of run_script, nil outside one

	mu       sync.Mutex
	searches []string // the script's own search_tools(...) queries, the last few

	// resultTokens counts the tokens (o200k_base) of the values tool calls
	// returned to the script: what stayed out of the model's context.
	resultTokens atomic.Int64

	// vault serves a run without a client session (rewrite.go).
	once  sync.Once
	vault *rewrite.Vault
}

var _ sandbox.Host = (*scriptHost)(nil)

// Call resolves the name the script used and calls the tool on the
// provider that offers it (the upstream pool, a skill).
// Failures the script can act on are *sandbox.ToolError.
func (h *scriptHost) Call(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error) {
	if err := spendCall(ctx, name); err != nil {
		return nil, err
	}
	if skill := skillhost.Called(name); skill != "" {
		v, err := h.callSkill(h.p.pii.scriptContext(ctx, h), name, skill, args)
		if err == nil {
			h.learned(h.p.catalog.Load(), skillhost.ServerName+"."+skill)
		}
		return v, err
	}
	ix := h.p.catalog.Load()
	hit, ok := ix.Resolve(name)
	if !ok {
		// A server that is down may never have listed its tools: say it
		// is unavailable rather than that the tool does not exist.
		if s, ok := h.p.serverOf(name); ok && s.State != StateReady {
			err := &UnavailableError{Server: s.Name, Reason: unavailableReason(s)}
			return nil, &sandbox.ToolError{Tool: name, Msg: err.Error()}
		}
		return nil, &sandbox.ToolError{Tool: name, Msg: unknownToolMessage(ix, name)}
	}
	qname := hit.QName
	ctx = h.p.pii.scriptContext(ctx, h)
	args = coerce.Args(args, hit.Tool.InputSchema)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	res, err := h.p.tools.call(ctx, hit.Tool.Server, &mcp.CallToolParams{Name: hit.Tool.Name, Arguments: args})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if isRefusal(err) { // its message names the tool
			return nil, &sandbox.ToolError{Tool: name, Msg: err.Error()}
		}
		return nil, &sandbox.ToolError{Tool: name, Msg: qname + ": " + err.Error()}
	}
	if res.IsError {
		msg := strings.TrimSpace(mcptext.Text(res.Content))
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		return nil, &sandbox.ToolError{Tool: name, Msg: qname + " failed: " + msg}
	}
	v, err := scriptValue(res)
	if err != nil {
		return nil, &sandbox.ToolError{Tool: name, Msg: qname + ": " + err.Error()}
	}
	h.resultTokens.Add(int64(tokens.Estimate(string(v))))
	h.learned(ix, qname)
	if len(hit.Tool.OutputSchema) == 0 {
		h.p.learn.Observed(qname, v)
	}
	return v, nil
}

// learned teaches search that the script's recent searches led to a call
// of qname (package learn).
func (h *scriptHost) learned(ix *index.Index, qname string) {
	h.mu.Lock()
	searches := slices.Clone(h.searches)
	h.mu.Unlock()
	h.p.learn.Called(ix, h.session.recentSearches(), searches, qname)
}

// callSkill runs the skill a script called as name (tools.skills.NAME),
// inside callChain like any provider's tool: the policy decides it and
// the audit records it.
func (h *scriptHost) callSkill(ctx context.Context, name, skill string, args json.RawMessage) (json.RawMessage, error) {
	var v json.RawMessage
	_, err := h.p.tools.through(ctx, toolCall{Name: "skills." + skill, Args: args}, func(ctx context.Context, _ toolCall) (callResult, error) {
		var err error
		v, err = h.p.skills.Call(withCaller(ctx, h), skill, args)
		return callResult{Bytes: len(v)}, err
	})
	if isRefusal(err) {
		return nil, &sandbox.ToolError{Tool: name, Msg: err.Error()}
	}
	return v, err
}

// Search serves search_tools(...) inside scripts.
func (h *scriptHost) Search(ctx context.Context, query, detail string, limit int) (string, error) {
	text, err := h.p.search(h.p.pii.scriptContext(ctx, h), query, detail, limit, "", h.lang)
	if err != nil {
		return "", &sandbox.ToolError{Tool: "search_tools", Msg: err.Error()}
	}
	h.mu.Lock()
	if len(h.searches) == learn.RecentQueries {
		h.searches = h.searches[1:]
	}
	h.searches = append(h.searches, query)
	h.mu.Unlock()
	return text, nil
}

// serverOf finds the server (an upstream, a provider's) a tool name
// starts with, by its name or its script identifier.
func (p *Proxy) serverOf(name string) (ProvidedServer, bool) {
	prefix, _, ok := strings.Cut(name, ".")
	if !ok {
		return ProvidedServer{}, false
	}
	for _, s := range p.tools.servers() {
		if s.Name == prefix || index.ScriptIdent(s.Name) == prefix {
			return s, true
		}
	}
	return ProvidedServer{}, false
}

func unknownToolMessage(ix *index.Index, name string) string {
	msg := fmt.Sprintf("unknown tool %q", name)
	if s := ix.Suggest(name, 3); len(s) > 0 {
		msg += "; did you mean " + strings.Join(s, ", ") + "?"
	}
	return msg + " (search_tools finds tools by what they do)"
}

// scriptValue is what a script receives for a tool result (DESIGN.md):
// structuredContent if present; else a single text block that parses as
// JSON, parsed; else the text; other content becomes small descriptive
// objects, never inlined base64.
func scriptValue(res *mcp.CallToolResult) (json.RawMessage, error) {
	if res.StructuredContent != nil {
		return json.Marshal(res.StructuredContent)
	}
	allText := true
	for _, c := range res.Content {
		if _, ok := c.(*mcp.TextContent); !ok {
			allText = false
		}
	}
	if allText {
		if len(res.Content) == 1 {
			text := res.Content[0].(*mcp.TextContent).Text
			if t := strings.TrimSpace(text); json.Valid([]byte(t)) && (strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[")) {
				return json.RawMessage(t), nil
			}
		}
		return json.Marshal(mcptext.Text(res.Content))
	}
	items := make([]any, 0, len(res.Content))
	for _, c := range res.Content {
		items = append(items, contentObject(c))
	}
	return json.Marshal(items)
}

// contentObject describes one content block for a script.
func contentObject(c mcp.Content) any {
	switch c := c.(type) {
	case *mcp.TextContent:
		return map[string]any{"type": "text", "text": c.Text}
	case *mcp.ImageContent:
		return map[string]any{"type": "image", "mime": c.MIMEType, "size": len(c.Data)}
	case *mcp.AudioContent:
		return map[string]any{"type": "audio", "mime": c.MIMEType, "size": len(c.Data)}
	case *mcp.ResourceLink:
		return map[string]any{"type": "resource_link", "uri": c.URI, "name": c.Name, "mime": c.MIMEType}
	case *mcp.EmbeddedResource:
		o := map[string]any{"type": "resource"}
		if r := c.Resource; r != nil {
			o["uri"], o["mime"] = r.URI, r.MIMEType
			if r.Text != "" {
				o["text"] = r.Text
			} else {
				o["size"] = len(r.Blob)
			}
		}
		return o
	}
	return map[string]any{"type": "unknown"}
}
