package telemetry

import (
	"context"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/mcptext"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
)

// Captured content (Config.CaptureContent): a tools/call's arguments and
// result on its span, scrubbed of personal data and cut to maxCaptured.

// clean is s with the personal data in it replaced (scrub), for a span.
func (t *Telemetry) clean(ctx context.Context, s string) string {
	if t.scrub == nil || s == "" {
		return s
	}
	return t.scrub(ctx, s)
}

// capturedAttrs are the arguments and result of a tools/call, for
// CaptureContent, cleaned of personal data: what a script typed is no
// token yet (an upstream's result is one already).
func (t *Telemetry) capturedAttrs(ctx context.Context, params mcp.Params, res mcp.Result) []attribute.KeyValue {
	attrs := capturedAttrs(params, res)
	for i, a := range attrs {
		attrs[i].Value = attribute.StringValue(t.clean(ctx, a.Value.AsString()))
	}
	return attrs
}

// capturedAttrs are the arguments and result of a tools/call, as they are.
func capturedAttrs(params mcp.Params, res mcp.Result) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	var args any
	switch p := params.(type) {
	case *mcp.CallToolParamsRaw:
		args = p.Arguments
	case *mcp.CallToolParams:
		args = p.Arguments
	default:
		return nil
	}
	if s := jsonText(args); s != "" {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(truncate(s)))
	}
	r, ok := res.(*mcp.CallToolResult)
	switch {
	case !ok || r == nil:
	case r.IsError:
		attrs = append(attrs, attrToolErrorMessage.String(truncate(mcptext.Text(r.Content))))
	case r.StructuredContent != nil:
		attrs = append(attrs, semconv.GenAIToolCallResultKey.String(truncate(jsonText(r.StructuredContent))))
	default:
		attrs = append(attrs, semconv.GenAIToolCallResultKey.String(truncate(mcptext.Text(r.Content))))
	}
	return attrs
}

func jsonText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case json.RawMessage:
		return string(v)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// truncate cuts s to maxCaptured bytes, on a character boundary, saying
// how much was cut.
func truncate(s string) string {
	if len(s) <= maxCaptured {
		return s
	}
	cut := maxCaptured
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[" + strconv.Itoa(len(s)-cut) + " more bytes]"
}
