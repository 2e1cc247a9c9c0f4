package telemetry

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/sandbox"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// The spans and counters of toolfold's own operations: script runs
// (execute_script), searches (search_tools), and calls to a provider of
// toolfold's own (skills).

// StartScript starts the span of one script run.
func (t *Telemetry) StartScript(ctx context.Context, lang, code string) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nil
	}
	ctx, span := t.tracer.Start(ctx, spanScript, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attrScriptLanguage.String(lang)))
	if t.capture && span.IsRecording() {
		span.SetAttributes(attrScriptCode.String(truncate(t.clean(ctx, code))))
	}
	return ctx, span
}

// SlotWait records on a run's span how long it waited for a run slot
// (package workspace's run slots).
func (t *Telemetry) SlotWait(span trace.Span, waited time.Duration) {
	if t == nil || span == nil || !span.IsRecording() {
		return
	}
	span.SetAttributes(attrSlotWait.Float64(waited.Seconds()))
}

// EndScript ends a run's span and counts it: its outcome, the limit it
// hit, the tool result bytes it kept out of the model's context.
func (t *Telemetry) EndScript(ctx context.Context, span trace.Span, lang string, res *sandbox.Result, err error) {
	if t == nil {
		return
	}
	outcome, limit := outcomeOK, ""
	switch {
	case err != nil && ctx.Err() != nil:
		outcome = "canceled"
	case err != nil:
		outcome, _ = t.errorType(err)
	case res.Err != nil:
		outcome = res.Err.Kind
		if limitKinds[outcome] {
			limit = outcome
		}
	}
	if span.IsRecording() {
		if res != nil {
			span.SetAttributes(attrScriptToolCalls.Int(res.ToolCalls), attrScriptResultBytes.Int64(res.ResultBytes),
				attrScriptOutputBytes.Int(len(res.Output)))
		}
		span.SetAttributes(attrOutcome.String(outcome))
		if limit != "" {
			span.SetAttributes(attrScriptLimit.String(limit))
		}
		if outcome != outcomeOK {
			span.SetAttributes(semconv.ErrorTypeKey.String(outcome))
			span.SetStatus(codes.Error, t.clean(ctx, t.scriptStatus(outcome, res, err)))
		}
	}
	span.End()
	langAttr := attrScriptLanguage.String(lang)
	t.scriptRuns.Add(ctx, 1, metric.WithAttributes(langAttr, attrOutcome.String(outcome)))
	if limit != "" {
		t.limitsHit.Add(ctx, 1, metric.WithAttributes(attrScriptLimit.String(limit)))
	}
	if res != nil && res.ResultBytes > 0 {
		t.keptBytes.Add(ctx, res.ResultBytes, metric.WithAttributes(langAttr))
	}
}

// scriptStatus describes a failed run: the script's error only when
// content is captured (it quotes the script and what tools returned).
func (t *Telemetry) scriptStatus(outcome string, res *sandbox.Result, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case t.capture:
		return truncate(res.Err.Error())
	}
	return "script failed: " + outcome
}

// TraceSearch runs search inside a span that records its shape: the
// query's length, detail, limit, server filter and hits; the query text
// only with CaptureContent.
func (t *Telemetry) TraceSearch(ctx context.Context, query, detail string, limit int, server string,
	search func() (string, int, error)) (string, error) {
	if t == nil {
		text, _, err := search()
		return text, err
	}
	_, span := t.tracer.Start(ctx, spanSearch, trace.WithSpanKind(trace.SpanKindInternal))
	defer span.End()
	text, hits, err := search()
	if !span.IsRecording() {
		return text, err
	}
	if detail == "" {
		detail = string(index.DetailSummary)
	}
	span.SetAttributes(attrSearchQueryLength.Int(len(query)), attrSearchDetail.String(detail),
		attrSearchLimit.Int(limit), attrSearchHits.Int(hits))
	if server != "" {
		span.SetAttributes(attrSearchServer.String(server))
	}
	if t.capture {
		span.SetAttributes(attrSearchQuery.String(truncate(t.clean(ctx, query))))
	}
	if err != nil {
		typ, _ := t.errorType(err)
		if _, ok := err.(*jsonrpc.Error); !ok {
			typ = errorTypeTool
		}
		span.SetAttributes(semconv.ErrorTypeKey.String(typ))
		span.SetStatus(codes.Error, t.clean(ctx, err.Error()))
	}
	return text, err
}

// TraceProviderCall runs call, a tool call served by a provider of
// toolfold's own (skills; proxy's Provider), inside an INTERNAL span "tools/call
// server.tool", and counts it by provider, server and outcome. Upstream
// calls are traced by ClientMiddleware instead.
func (t *Telemetry) TraceProviderCall(ctx context.Context, provider, server, tool string,
	call func(context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	if t == nil {
		return call(ctx)
	}
	ctx, span := t.tracer.Start(ctx, "tools/call "+server+"."+tool, trace.WithSpanKind(trace.SpanKindInternal))
	defer span.End()
	res, err := call(ctx)
	outcome := outcomeOK
	switch {
	case err != nil:
		outcome, _ = t.errorType(err)
	case res != nil && res.IsError:
		outcome = errorTypeTool
	}
	attrs := []attribute.KeyValue{attrProvider.String(provider), attrServer.String(server), attrOutcome.String(outcome)}
	if span.IsRecording() {
		span.SetAttributes(append(attrs, semconv.GenAIToolName(tool), semconv.GenAIOperationNameExecuteTool,
			semconv.McpMethodNameKey.String("tools/call"))...)
		if outcome != outcomeOK {
			span.SetAttributes(semconv.ErrorTypeKey.String(outcome))
			span.SetStatus(codes.Error, outcome)
		}
	}
	if t.provCalls.Enabled(ctx) {
		t.provCalls.Add(ctx, 1, metric.WithAttributes(attrs...))
	}
	return res, err
}
