// Package mcptext reads the text of MCP content: the one place that joins
// a result's text blocks, for the script bridge (proxy) and the content
// spans record (telemetry).
package mcptext

import (
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Text joins the text blocks of a result's content with newlines; other
// blocks (images, resources) are left out.
func Text(cs []mcp.Content) string {
	var parts []string
	for _, c := range cs {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
