package proxy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSearchLanguage: search_tools spells signatures in the language the
// client names, Lua by default, and refuses a language it does not know.
func TestSearchLanguage(t *testing.T) {
	_, cs := startProxy(t, testConfig(stdioUpstream("calc")))
	for lang, want := range map[string]string{
		"":           "tools.calc.add{",
		"lua":        "tools.calc.add{",
		"python":     "tools.calc.add(",
		"javascript": "await tools.calc.add({",
	} {
		text, isErr := callText(t, cs, "search_tools", map[string]any{"query": "sum of two numbers", "language": lang, "limit": 1})
		if isErr || !strings.HasPrefix(text, want) {
			t.Errorf("language %q: %q (isError %v), want prefix %q", lang, text, isErr, want)
		}
	}
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "search_tools",
		Arguments: map[string]any{"query": "x", "language": "cobol"}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, "python") {
		t.Errorf("cobol: err = %v, want invalid params naming the languages", err)
	}
}
