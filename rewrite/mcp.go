package rewrite

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The functions below rewrite the MCP messages that cross the upstream
// edge. Each modifies its argument in place (the caller owns the message:
// it was just decoded from the upstream, or is about to be encoded for it).
// A nil *Vault (PII rewriting off) leaves every message as it is.

// TokenizeText tokenizes a text that may be JSON: a text starting with '{'
// or '[' that parses is walked as JSON (so escapes and keys are handled),
// anything else is tokenized as text.
func (v *Vault) TokenizeText(s string) string {
	if v == nil {
		return s
	}
	if t := bytes.TrimLeft([]byte(s[:min(len(s), 64)]), " \t\r\n"); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		if out, err := v.TokenizeJSON([]byte(s)); err == nil {
			return string(out)
		}
	}
	return v.Tokenize(s)
}

// TokenizeResult tokenizes a tool result: text blocks, embedded resources,
// resource links and structuredContent. Images and audio are left alone.
func (v *Vault) TokenizeResult(res *mcp.CallToolResult) {
	if v == nil {
		return
	}
	if res == nil {
		return
	}
	v.TokenizeContent(res.Content)
	if res.StructuredContent != nil {
		res.StructuredContent = v.TokenizeValue(res.StructuredContent)
	}
}

// TokenizeContent tokenizes content blocks in place.
func (v *Vault) TokenizeContent(cs []mcp.Content) {
	if v == nil {
		return
	}
	for _, c := range cs {
		switch c := c.(type) {
		case *mcp.TextContent:
			c.Text = v.TokenizeText(c.Text)
		case *mcp.EmbeddedResource:
			v.TokenizeResourceContents(c.Resource)
		case *mcp.ResourceLink:
			c.URI = v.Tokenize(c.URI)
			c.Name = v.Tokenize(c.Name)
			c.Title = v.Tokenize(c.Title)
			c.Description = v.Tokenize(c.Description)
		}
	}
}

// TokenizeResourceContents tokenizes a resource's URI and text (not blobs).
func (v *Vault) TokenizeResourceContents(rc *mcp.ResourceContents) {
	if v == nil {
		return
	}
	if rc == nil {
		return
	}
	rc.URI = v.Tokenize(rc.URI)
	rc.Text = v.TokenizeText(rc.Text)
}

// TokenizeReadResource tokenizes the result of resources/read.
func (v *Vault) TokenizeReadResource(res *mcp.ReadResourceResult) {
	if v == nil {
		return
	}
	if res == nil {
		return
	}
	for _, rc := range res.Contents {
		v.TokenizeResourceContents(rc)
	}
}

// TokenizePrompt tokenizes the result of prompts/get.
func (v *Vault) TokenizePrompt(res *mcp.GetPromptResult) {
	if v == nil {
		return
	}
	if res == nil {
		return
	}
	res.Description = v.Tokenize(res.Description)
	for _, m := range res.Messages {
		if m != nil && m.Content != nil {
			v.TokenizeContent([]mcp.Content{m.Content})
		}
	}
}

// TokenizeLog tokenizes a logging notification's data and logger name.
func (v *Vault) TokenizeLog(p *mcp.LoggingMessageParams) {
	if v == nil {
		return
	}
	if p == nil {
		return
	}
	p.Logger = v.Tokenize(p.Logger)
	p.Data = v.TokenizeValue(p.Data)
}

// TokenizeError returns err with its message tokenized. A JSON-RPC error
// keeps its code; its data is tokenized too. Other errors become plain
// errors with the tokenized text (their chain is dropped: it could hold
// the values).
func (v *Vault) TokenizeError(err error) error {
	if v == nil || err == nil {
		return nil
	}
	var werr *jsonrpc.Error
	if errors.As(err, &werr) {
		out := &jsonrpc.Error{Code: werr.Code, Message: v.Tokenize(werr.Message)}
		if len(werr.Data) > 0 {
			if d, e := v.TokenizeJSON(werr.Data); e == nil {
				out.Data = json.RawMessage(d)
			}
		}
		return out
	}
	msg := err.Error()
	if t := v.Tokenize(msg); t != msg {
		return errors.New(t)
	}
	return err
}

// DetokenizeArgs restores tokens in tool arguments (json.RawMessage or a
// decoded value) at any depth, inside larger strings too. JSON that cannot
// hold a token (no '[') is returned as it is: args itself.
func (v *Vault) DetokenizeArgs(args any) any {
	if v == nil {
		return args
	}
	if raw, ok := args.(json.RawMessage); ok && bytes.IndexByte(raw, '[') < 0 {
		return args
	}
	return v.DetokenizeValue(args)
}

// TokenizeResourceList tokenizes what resources/list returns about each
// resource: URI, name, title and description (file names hold emails
// too). A tokenized URI read back through resources/read is restored on
// its way upstream.
func (v *Vault) TokenizeResourceList(res *mcp.ListResourcesResult) {
	if v == nil || res == nil {
		return
	}
	for _, r := range res.Resources {
		if r == nil {
			continue
		}
		r.URI = v.Tokenize(r.URI)
		r.Name = v.Tokenize(r.Name)
		r.Title = v.Tokenize(r.Title)
		r.Description = v.Tokenize(r.Description)
	}
}
