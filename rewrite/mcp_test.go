package rewrite

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestTokenizeMCPMessages(t *testing.T) {
	v := newTestVault(t, Limits{})
	res := &mcp.CallToolResult{
		Content: []mcp.Content{
			&mcp.TextContent{Text: `{"to": "ann@example.com"}`},
			&mcp.TextContent{Text: "plain ann@example.com"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mailto:bob@example.com", Text: "bob@example.com", Blob: []byte("x")}},
			&mcp.ResourceLink{URI: "file:///carol@example.com.txt", Name: "carol@example.com.txt"},
			&mcp.ImageContent{Data: []byte("ann@example.com"), MIMEType: "image/png"},
		},
		StructuredContent: map[string]any{"to": "ann@example.com"},
	}
	v.TokenizeResult(res)
	b, _ := json.Marshal(res)
	got := string(b)
	for _, raw := range []string{"ann@", "bob@", "carol@"} {
		// The image's bytes are base64 on the wire: images are not scanned.
		if strings.Contains(got, raw) {
			t.Errorf("result still holds %q: %s", raw, got)
		}
	}
	if !strings.Contains(got, `{\"to\": \"[EMAIL_1]\"}`) || !strings.Contains(got, `"structuredContent":{"to":"[EMAIL_1]"}`) {
		t.Errorf("tokenized result: %s", got)
	}

	rr := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "file:///x", Text: "dave@example.com"}}}
	v.TokenizeReadResource(rr)
	pr := &mcp.GetPromptResult{Description: "for erin@example.com", Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "erin@example.com"}}}}
	v.TokenizePrompt(pr)
	lg := &mcp.LoggingMessageParams{Logger: "db", Data: map[string]any{"user": "frank@example.com"}}
	v.TokenizeLog(lg)
	lr := &mcp.ListResourcesResult{Resources: []*mcp.Resource{{URI: "file:///gina@example.com", Name: "gina@example.com"}}}
	v.TokenizeResourceList(lr)
	b, _ = json.Marshal([]any{rr, pr, lg, lr})
	if s := string(b); strings.Contains(s, "@example.com") {
		t.Errorf("left a value: %s", s)
	}
	if got := v.Detokenize(lr.Resources[0].URI); got != "file:///gina@example.com" {
		t.Errorf("resource URI round trip: %q", got)
	}

	err := v.TokenizeError(&jsonrpc.Error{Code: -32000, Message: "no access for hal@example.com", Data: json.RawMessage(`{"who":"hal@example.com"}`)})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != -32000 || strings.Contains(werr.Message+string(werr.Data), "hal@") {
		t.Errorf("TokenizeError: %#v", err)
	}
	if e := v.TokenizeError(errors.New("quota for ida@example.com")); strings.Contains(e.Error(), "ida@") {
		t.Errorf("plain error: %v", e)
	}
	plain := errors.New("nothing personal")
	if v.TokenizeError(plain) != plain {
		t.Error("an error without values must keep its identity")
	}
}

// A nil vault (PII off) leaves everything unchanged.
func TestNilVault(t *testing.T) {
	var v *Vault
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ann@example.com"}}}
	v.TokenizeResult(res)
	v.TokenizeLog(&mcp.LoggingMessageParams{Data: "x"})
	if res.Content[0].(*mcp.TextContent).Text != "ann@example.com" || v.Tokenize("ann@example.com") != "ann@example.com" ||
		v.Detokenize("[EMAIL_1]") != "[EMAIL_1]" || v.DetokenizeArgs("[EMAIL_1]") != "[EMAIL_1]" {
		t.Error("a nil vault changed a message")
	}
}
