package mcptext

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestText(t *testing.T) {
	for _, tc := range []struct {
		in   []mcp.Content
		want string
	}{
		{nil, ""},
		{[]mcp.Content{&mcp.TextContent{Text: "one"}}, "one"},
		{[]mcp.Content{&mcp.TextContent{Text: "one"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1}},
			&mcp.TextContent{Text: "two"}}, "one\ntwo"},
	} {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%d blocks) = %q, want %q", len(tc.in), got, tc.want)
		}
	}
}
