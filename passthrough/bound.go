package passthrough

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/bytesize"
	"github.com/toolfold/toolfold/internal/jsonsize"
)

// maxForwardedResult bounds, by default (Options.MaxResult), a tool
// result passed through to a client (expose: passthrough or hybrid). An
// upstream frame may be much larger; a client (and the model behind it) should not get that
// much in one result. Past the bound, text is cut and blobs and structured
// content dropped, with a note saying so.
const maxForwardedResult = 4 << 20

// boundResult returns res, or a copy cut to max bytes.
func boundResult(res *mcp.CallToolResult, max int) *mcp.CallToolResult {
	if res == nil {
		return res
	}
	size := 0
	for _, c := range res.Content {
		size += contentSize(c)
	}
	var structured int
	if res.StructuredContent != nil {
		// Sized without marshalling: the common small result costs a
		// walk, not an encoding.
		structured = jsonsize.Size(res.StructuredContent, math.MaxInt)
	}
	if size+structured <= max {
		return res
	}
	out := *res
	out.Content = nil
	left := max
	var dropped int
	for _, c := range res.Content {
		n := contentSize(c)
		if n <= left {
			out.Content = append(out.Content, c)
			left -= n
			continue
		}
		if t, ok := c.(*mcp.TextContent); ok && left > 0 {
			cut := left
			for cut > 0 && !utf8.RuneStart(t.Text[cut]) {
				cut--
			}
			cp := *t
			cp.Text = t.Text[:cut]
			out.Content = append(out.Content, &cp)
			left = 0
			continue
		}
		dropped++
	}
	if structured > 0 && structured > left {
		out.StructuredContent = nil
	}
	note := fmt.Sprintf("[toolfold: the upstream's result was %s, over the %s toolfold passes on; it was cut here", bytesize.Format(int64(size+structured)), bytesize.Format(int64(max)))
	if dropped > 0 {
		note += fmt.Sprintf(", %d content item(s) dropped", dropped)
	}
	if res.StructuredContent != nil && out.StructuredContent == nil {
		note += ", structuredContent dropped"
	}
	note += ". Ask for less (a filter, a page, a range), or use run_script to reduce it there.]"
	out.Content = append(out.Content, &mcp.TextContent{Text: note})
	return &out
}

// contentSize approximates the bytes a content item costs on the wire.
func contentSize(c mcp.Content) int {
	switch c := c.(type) {
	case *mcp.TextContent:
		return len(c.Text)
	case *mcp.ImageContent:
		return len(c.Data) * 4 / 3
	case *mcp.AudioContent:
		return len(c.Data) * 4 / 3
	case *mcp.EmbeddedResource:
		if c.Resource != nil {
			return len(c.Resource.Text) + len(c.Resource.Blob)*4/3
		}
	}
	b, _ := json.Marshal(c)
	return len(b)
}
