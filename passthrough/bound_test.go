package passthrough

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// boundResult keeps structured content that fits and drops what does not.
func TestBoundResultStructured(t *testing.T) {
	small := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: map[string]any{"sum": 3.0}}
	if got := boundResult(small, 1000); got != small {
		t.Errorf("a small result was changed: %+v", got)
	}
	rows := make([]any, 200)
	for i := range rows {
		rows[i] = map[string]any{"name": "row", "n": float64(i)}
	}
	big := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}, StructuredContent: map[string]any{"rows": rows}}
	got := boundResult(big, 1000)
	if got.StructuredContent != nil {
		t.Error("structured content over the bound was passed on")
	}
	if text := textOf(got.Content); !strings.Contains(text, "structuredContent dropped") {
		t.Errorf("no note of the drop: %q", text)
	}
}

// textOf joins the text items of content.
func textOf(content []mcp.Content) string {
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}
