package rewrite

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolsFor: a tool's texts and its schema's texts are tokenized in a
// copy, the registry's tool untouched; property names, types and a tool
// with nothing to find stay as they are (the same pointer).
func TestToolsFor(t *testing.T) {
	v := NewVault(mustDetector(t, Defaults()), Limits{})
	schema := json.RawMessage(`{"type":"object","properties":{"to":{"type":"string","description":"e.g. erin.desc@example.com","enum":["+44 20 7946 0958"]},"description":{"type":"string"}}}`)
	planted := &mcp.Tool{Name: "mail", Title: "Mail erin.desc@example.com", Description: "Call +44 20 7946 0958.",
		InputSchema: schema, Annotations: &mcp.ToolAnnotations{Title: "erin.desc@example.com"}}
	clean := &mcp.Tool{Name: "add", Description: "Add two numbers.", InputSchema: json.RawMessage(`{"type":"object"}`)}
	out := v.ToolsFor(&mcp.ListToolsResult{Tools: []*mcp.Tool{planted, clean}})
	b, _ := json.Marshal(out)
	for _, raw := range []string{"erin.desc@example.com", "7946 0958"} {
		if strings.Contains(string(b), raw) {
			t.Errorf("%q is raw in %s", raw, b)
		}
	}
	for _, want := range []string{`"title":"Mail [EMAIL_1]"`, `"description":"Call [PHONE_1]."`, `"enum":["[PHONE_1]"]`, `"description":"e.g. [EMAIL_1]"`, `"description":{"type":"string"}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("lacks %s: %s", want, b)
		}
	}
	if out.Tools[1] != clean {
		t.Error("a tool with nothing to tokenize was copied")
	}
	if planted.Description != "Call +44 20 7946 0958." || string(planted.InputSchema.(json.RawMessage)) != string(schema) {
		t.Error("the registry's tool was modified")
	}
}
