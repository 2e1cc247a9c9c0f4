package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/url"
	"reflect"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/index"
	"github.com/toolfold/toolfold/sandbox"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// OpenTelemetry, following the semantic conventions for MCP and GenAI
// (semconv v1.41.0):
//
//	tools/call run_script          SERVER    one per client request (serverMiddleware)
//	└─ execute_script              INTERNAL  the script's run (RunScript)
//	   ├─ tools/call add           CLIENT    one per upstream request (clientMiddleware)
//	   ├─ tools/call skills.digest INTERNAL  one per call to a provider of toolfold's own (traceProviderCall)
//	   └─ search_tools             INTERNAL  a search, from a script or search_tools
//
// A client's trace is continued from params._meta (SEP-414: traceparent,
// tracestate); every upstream request carries ours in its params._meta,
// never the client's. Arguments and results are recorded only with
// Options.CaptureContent, and then cut to maxCaptured bytes; they, and
// error statuses, hold tokens, never personal data (telemetry.scrub).
//
// This file uses the OpenTelemetry API only; cmd/toolfold installs the SDK.
// With neither provider set, telemetry is nil: the client-edge middleware is
// not even wrapped, and the upstream edge only strips trace context.

// instrumentation is the scope name of toolfold's tracer and meter.
const instrumentation = "github.com/toolfold/toolfold/proxy"

// Span names of our own operations.
const (
	spanScript = "execute_script"
	spanSearch = "search_tools"
)

// Attribute keys for what the conventions do not name.
const (
	attrUpstream          = attribute.Key("toolfold.upstream")            // the upstream's name in proxy.yaml
	attrOutcome           = attribute.Key("toolfold.outcome")             // "ok" or the error.type
	attrScriptLanguage    = attribute.Key("toolfold.script.language")     // "lua"
	attrSlotWait          = attribute.Key("toolfold.script.slot_wait")    // seconds waited for a run slot (slots.go)
	attrScriptLimit       = attribute.Key("toolfold.script.limit")        // the limit a run hit: timeout, memory, cpu, output, limit
	attrScriptToolCalls   = attribute.Key("toolfold.script.tool_calls")   // tool calls the run made
	attrScriptResultBytes = attribute.Key("toolfold.script.result_bytes") // tool result bytes kept in the sandbox
	attrScriptOutputBytes = attribute.Key("toolfold.script.output_bytes") // printed output bytes
	attrScriptCode        = attribute.Key("toolfold.script.code")         // CaptureContent only
	attrSearchQueryLength = attribute.Key("toolfold.search.query_length") // in bytes
	attrSearchQuery       = attribute.Key("toolfold.search.query")        // CaptureContent only
	attrSearchDetail      = attribute.Key("toolfold.search.detail")       // name, summary, full
	attrSearchLimit       = attribute.Key("toolfold.search.limit")        // as asked; 0 is the default
	attrSearchServer      = attribute.Key("toolfold.search.server")       // the server filter, if any
	attrSearchHits        = attribute.Key("toolfold.search.hits")         // tools found
	attrToolErrorMessage  = attribute.Key("toolfold.tool_error.message")  // an isError result's text; CaptureContent only
	attrProvider          = attribute.Key("toolfold.provider")            // a tool provider of toolfold's own: "skills"
	attrServer            = attribute.Key("toolfold.server")              // the provider's server the tool is in
)

const (
	errorTypeTool   = "tool_error"  // error.type of an isError result, as the conventions say
	outcomeOK       = "ok"          // toolfold.outcome of a success
	metaTraceparent = "traceparent" // W3C trace context keys in params._meta (SEP-414)
	metaTracestate  = "tracestate"  //
	maxCaptured     = 4 << 10       // bytes of captured content per attribute
)

// durationBuckets are the advisory bucket boundaries (seconds) of the MCP
// operation duration histograms.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// limitKinds are the sandbox.ScriptError kinds that mean a limit was hit.
var limitKinds = map[string]bool{"timeout": true, "memory": true, "cpu": true, "output": true, "limit": true}

// telemetry holds the tracer and instruments. A nil *telemetry is valid
// and records nothing.
type telemetry struct {
	tracer  trace.Tracer
	prop    propagation.TraceContext
	capture bool
	// scrub keeps personal data out of what spans record (the captured
	// content, error statuses): set by New when PII rewriting is on.
	scrub func(ctx context.Context, s string) string

	serverDur  mcpconv.ServerOperationDuration
	clientDur  mcpconv.ClientOperationDuration
	scriptRuns metric.Int64Counter
	toolCalls  metric.Int64Counter
	limitsHit  metric.Int64Counter
	keptBytes  metric.Int64Counter
	provCalls  metric.Int64Counter
}

// newTelemetry builds the tracer and instruments from opts; nil when
// neither provider is set.
func newTelemetry(opts *Options, version string, log *slog.Logger) *telemetry {
	if opts.TracerProvider == nil && opts.MeterProvider == nil {
		return nil
	}
	tp, mp := opts.TracerProvider, opts.MeterProvider
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	t := &telemetry{
		tracer:  tp.Tracer(instrumentation, trace.WithInstrumentationVersion(version), trace.WithSchemaURL(semconv.SchemaURL)),
		capture: opts.CaptureContent,
	}
	m := mp.Meter(instrumentation, metric.WithInstrumentationVersion(version), metric.WithSchemaURL(semconv.SchemaURL))
	buckets := metric.WithExplicitBucketBoundaries(durationBuckets...)
	var errs [7]error
	t.serverDur, errs[0] = mcpconv.NewServerOperationDuration(m, buckets)
	t.clientDur, errs[1] = mcpconv.NewClientOperationDuration(m, buckets)
	t.scriptRuns, errs[2] = counter(m, "toolfold.script.runs", "{run}",
		"Scripts run by run_script, by language and outcome (ok or the script error kind).")
	t.toolCalls, errs[3] = counter(m, "toolfold.upstream.tool_calls", "{call}",
		"Tool calls sent to upstreams, by upstream and outcome (ok or the error.type).")
	t.limitsHit, errs[4] = counter(m, "toolfold.script.limits_hit", "{run}",
		"Script runs stopped by a sandbox limit, by kind.")
	t.keptBytes, errs[5] = counter(m, "toolfold.script.result_bytes", "By",
		"Bytes of tool results delivered into scripts: kept out of the model's context.")
	t.provCalls, errs[6] = counter(m, "toolfold.provider.tool_calls", "{call}",
		"Tool calls served by toolfold's own providers (not upstreams), by provider, server and outcome.")
	if err := errors.Join(errs[:]...); err != nil {
		log.Warn("telemetry: some instruments are disabled", "err", err)
	}
	return t
}

func counter(m metric.Meter, name, unit, desc string) (metric.Int64Counter, error) {
	c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil {
		return metricnoop.Int64Counter{}, err
	}
	return c, nil
}

// serverMiddleware traces and times every request the client sends: a
// SERVER span continuing the client's trace from params._meta.
func (t *telemetry) serverMiddleware() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		if t == nil {
			return next
		}
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			params := paramsOf(req)
			ctx = t.extract(ctx, req, params)
			return t.observe(ctx, trace.SpanKindServer, newOperation(method, params), req, params, nil, next)
		}
	}
}

// clientMiddleware traces and times every request toolfold sends to one
// upstream: a CLIENT span, child of the script's span when a script made
// the call, whose context replaces any trace context in params._meta.
func (t *telemetry) clientMiddleware(up config.Upstream) mcp.Middleware {
	peer := peerAttrs(up)
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		if t == nil {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				setTraceMeta(ctx, paramsOf(req), nil)
				return next(ctx, method, req)
			}
		}
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			params := paramsOf(req)
			return t.observe(ctx, trace.SpanKindClient, newOperation(method, params), req, params, peer, next)
		}
	}
}

// observe runs next inside a span of kind and records its duration. A
// CLIENT span's context goes into the request's _meta.
func (t *telemetry) observe(ctx context.Context, kind trace.SpanKind, op operation, req mcp.Request, params mcp.Params,
	peer []attribute.KeyValue, next mcp.MethodHandler) (res mcp.Result, err error) {
	start := time.Now()
	ctx, span := t.tracer.Start(ctx, op.spanName(), trace.WithSpanKind(kind))
	if kind == trace.SpanKindClient {
		setTraceMeta(ctx, params, t)
	}
	ended := false
	defer func() {
		if !ended { // a panic below: recoverMiddleware reports it
			span.SetStatus(codes.Error, "panic")
			span.End()
		}
	}()
	res, err = next(ctx, op.method, req)
	ended = true
	op.finish(req, params, res, err)
	if span.IsRecording() {
		span.SetAttributes(op.spanAttrs(req, peer)...)
		if t.capture {
			span.SetAttributes(t.capturedAttrs(ctx, params, res)...)
		}
		if op.errType != "" && !expectedFailure(op.method, err) {
			span.SetStatus(codes.Error, t.clean(ctx, t.statusText(res, err)))
		}
	}
	span.End()
	elapsed := time.Since(start).Seconds()
	if kind == trace.SpanKindServer {
		if t.serverDur.Enabled(ctx) {
			t.serverDur.Record(ctx, elapsed, mcpconv.MethodNameAttr(op.method), op.metricAttrs(nil)...)
		}
		return res, err
	}
	if t.clientDur.Enabled(ctx) {
		t.clientDur.Record(ctx, elapsed, mcpconv.MethodNameAttr(op.method), op.metricAttrs(peer)...)
	}
	if op.isTool && t.toolCalls.Enabled(ctx) {
		t.toolCalls.Add(ctx, 1, metric.WithAttributes(peer[0], attrOutcome.String(op.outcome())))
	}
	return res, err
}

// statusText describes a failure on a span: the error, or for an isError
// result its text when content is captured.
func (t *telemetry) statusText(res mcp.Result, err error) string {
	if err != nil {
		return err.Error()
	}
	if r, ok := res.(*mcp.CallToolResult); ok && t.capture {
		return truncate(contentText(r.Content))
	}
	return errorTypeTool
}

// extract returns ctx carrying the client's trace context: from
// params._meta (SEP-414), else from the HTTP request's headers.
func (t *telemetry) extract(ctx context.Context, req mcp.Request, params mcp.Params) context.Context {
	if params != nil {
		if m := params.GetMeta(); m != nil {
			if _, ok := m[metaTraceparent]; ok {
				return t.prop.Extract(ctx, metaCarrier(m))
			}
		}
	}
	if extra := req.GetExtra(); extra != nil && extra.Header != nil && extra.Header.Get(metaTraceparent) != "" {
		return t.prop.Extract(ctx, propagation.HeaderCarrier(extra.Header))
	}
	return ctx
}

// setTraceMeta replaces the trace context in an upstream request's _meta:
// whatever came in is dropped, and the span of ctx is injected when t is
// tracing it (a span of ours: a remote span context is the client's). The
// map is copied, so a caller's map is never changed.
func setTraceMeta(ctx context.Context, params mcp.Params, t *telemetry) {
	if params == nil {
		return
	}
	old := params.GetMeta()
	_, tp := old[metaTraceparent]
	_, ts := old[metaTracestate]
	inject := false
	if t != nil { // without telemetry, skip the context lookup
		sc := trace.SpanContextFromContext(ctx)
		inject = sc.IsValid() && !sc.IsRemote()
	}
	if !tp && !ts && !inject {
		return
	}
	m := make(map[string]any, len(old)+2)
	for k, v := range old {
		if k != metaTraceparent && k != metaTracestate {
			m[k] = v
		}
	}
	if inject {
		t.prop.Inject(ctx, metaCarrier(m))
	}
	params.SetMeta(m)
}

// metaCarrier adapts a _meta map to the propagators.
type metaCarrier map[string]any

func (c metaCarrier) Get(key string) string {
	s, _ := c[key].(string)
	return s
}

func (c metaCarrier) Set(key, value string) { c[key] = value }

func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// paramsOf returns req's params, or nil for absent ones (a typed nil
// pointer would panic in GetMeta).
func paramsOf(req mcp.Request) mcp.Params {
	p := req.GetParams()
	if p == nil {
		return nil
	}
	if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return p
}

// peerAttrs are the attributes of every request to one upstream. The first
// is always the upstream's name.
func peerAttrs(up config.Upstream) []attribute.KeyValue {
	attrs := []attribute.KeyValue{attrUpstream.String(up.Name)}
	if up.Transport != "http" {
		return append(attrs, semconv.NetworkTransportPipe)
	}
	attrs = append(attrs, semconv.NetworkTransportTCP)
	u, err := url.Parse(up.URL)
	if err != nil || u.Hostname() == "" {
		return attrs
	}
	attrs = append(attrs, semconv.ServerAddress(u.Hostname()))
	port, _ := strconv.Atoi(u.Port())
	if port == 0 && u.Scheme == "https" {
		port = 443
	} else if port == 0 {
		port = 80
	}
	return append(attrs, semconv.ServerPort(port))
}

// operation is what the telemetry knows of one MCP request.
type operation struct {
	method   string
	target   string // the tool or prompt named, if any
	isTool   bool   // tools/call
	tool     string // target of tools/call
	uri      string // resources/*
	protocol string
	errType  string
	rpcCode  string
}

func newOperation(method string, params mcp.Params) operation {
	op := operation{method: method}
	switch p := params.(type) {
	case *mcp.CallToolParamsRaw:
		op.target, op.tool, op.isTool = p.Name, p.Name, true
	case *mcp.CallToolParams:
		op.target, op.tool, op.isTool = p.Name, p.Name, true
	case *mcp.GetPromptParams:
		op.target = p.Name
	case *mcp.ReadResourceParams:
		op.uri = p.URI
	case *mcp.SubscribeParams:
		op.uri = p.URI
	case *mcp.UnsubscribeParams:
		op.uri = p.URI
	}
	return op
}

// spanName is "{mcp.method.name} {target}", or the method alone.
func (op *operation) spanName() string {
	if op.target == "" {
		return op.method
	}
	return op.method + " " + op.target
}

// finish records what the request's outcome and session tell.
func (op *operation) finish(req mcp.Request, params mcp.Params, res mcp.Result, err error) {
	op.protocol = protocolVersion(req, params)
	switch {
	case err != nil:
		op.errType, op.rpcCode = errorType(err)
	case isToolError(res):
		op.errType = errorTypeTool
	}
}

func (op *operation) outcome() string {
	if op.errType == "" {
		return outcomeOK
	}
	return op.errType
}

// metricAttrs are the low-cardinality attributes of the duration
// histograms (mcp.method.name is added by mcpconv).
func (op *operation) metricAttrs(peer []attribute.KeyValue) []attribute.KeyValue {
	attrs := make([]attribute.KeyValue, 0, 6+len(peer))
	attrs = append(attrs, peer...)
	if op.isTool {
		attrs = append(attrs, semconv.GenAIToolName(op.tool), semconv.GenAIOperationNameExecuteTool)
	}
	if op.protocol != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(op.protocol))
	}
	if op.errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(op.errType))
	}
	if op.rpcCode != "" {
		attrs = append(attrs, semconv.RPCResponseStatusCode(op.rpcCode))
	}
	return attrs
}

// spanAttrs are the metric attributes plus the method and session.
func (op *operation) spanAttrs(req mcp.Request, peer []attribute.KeyValue) []attribute.KeyValue {
	attrs := append(op.metricAttrs(peer), semconv.McpMethodNameKey.String(op.method))
	if id := sessionID(req.GetSession()); id != "" {
		// The tag, not the id: a collector is one more log (logredact.go).
		attrs = append(attrs, semconv.McpSessionID(SessionTag(id)))
	}
	if op.uri != "" {
		attrs = append(attrs, semconv.McpResourceURI(op.uri))
	}
	return attrs
}

func sessionID(s mcp.Session) string {
	switch s := s.(type) {
	case *mcp.ServerSession:
		if s != nil {
			return s.ID()
		}
	case *mcp.ClientSession:
		if s != nil {
			return s.ID()
		}
	}
	return ""
}

// protocolVersion is the request's MCP version: per request in _meta
// (2026-07-28 and later), else the session's, else what initialize asks.
func protocolVersion(req mcp.Request, params mcp.Params) string {
	if params != nil {
		if v, ok := params.GetMeta()[mcp.MetaKeyProtocolVersion].(string); ok {
			return v
		}
	}
	switch r := req.(type) {
	case interface{ ProtocolVersion() string }: // every *mcp.ServerRequest
		if v := r.ProtocolVersion(); v != "" {
			return v
		}
	default:
		if cs, ok := req.GetSession().(*mcp.ClientSession); ok && cs != nil {
			if ir := cs.InitializeResult(); ir != nil {
				return ir.ProtocolVersion
			}
		}
	}
	if ip, ok := params.(*mcp.InitializeParams); ok {
		return ip.ProtocolVersion
	}
	return ""
}

func isToolError(res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r != nil && r.IsError
}

// errorType classifies err for error.type; rpcCode is the JSON-RPC error
// code, when err is one.
func errorType(err error) (typ, rpcCode string) {
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr):
		code := strconv.FormatInt(werr.Code, 10)
		return code, code
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout", ""
	case errors.Is(err, context.Canceled):
		return "canceled", ""
	case disconnected(err):
		return "connection_closed", ""
	}
	return semconv.ErrorType(err).Value.AsString(), ""
}

// ErrorType names the error for telemetry's error.type.
func (*UnavailableError) ErrorType() string { return "unavailable" }

// clean is s with the personal data in it replaced (scrub), for a span.
func (t *telemetry) clean(ctx context.Context, s string) string {
	if t.scrub == nil || s == "" {
		return s
	}
	return t.scrub(ctx, s)
}

// capturedAttrs are the arguments and result of a tools/call, for
// CaptureContent, cleaned of personal data: what a script typed is no
// token yet (an upstream's result is one already).
func (t *telemetry) capturedAttrs(ctx context.Context, params mcp.Params, res mcp.Result) []attribute.KeyValue {
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
		attrs = append(attrs, attrToolErrorMessage.String(truncate(contentText(r.Content))))
	case r.StructuredContent != nil:
		attrs = append(attrs, semconv.GenAIToolCallResultKey.String(truncate(jsonText(r.StructuredContent))))
	default:
		attrs = append(attrs, semconv.GenAIToolCallResultKey.String(truncate(contentText(r.Content))))
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
	cut := utf8Prefix([]byte(s), maxCaptured)
	return string(cut) + "…[" + strconv.Itoa(len(s)-len(cut)) + " more bytes]"
}

// startScript starts the span of one script run.
func (t *telemetry) startScript(ctx context.Context, lang, code string) (context.Context, trace.Span) {
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

// slotWait records on a run's span how long it waited for a run slot
// (slots.go).
func (t *telemetry) slotWait(span trace.Span, waited time.Duration) {
	if t == nil || span == nil || !span.IsRecording() {
		return
	}
	span.SetAttributes(attrSlotWait.Float64(waited.Seconds()))
}

// endScript ends a run's span and counts it: its outcome, the limit it
// hit, the tool result bytes it kept out of the model's context.
func (t *telemetry) endScript(ctx context.Context, span trace.Span, lang string, res *sandbox.Result, err error) {
	if t == nil {
		return
	}
	outcome, limit := outcomeOK, ""
	switch {
	case err != nil && ctx.Err() != nil:
		outcome = "canceled"
	case err != nil:
		outcome, _ = errorType(err)
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
func (t *telemetry) scriptStatus(outcome string, res *sandbox.Result, err error) string {
	switch {
	case err != nil:
		return err.Error()
	case t.capture:
		return truncate(res.Err.Error())
	}
	return "script failed: " + outcome
}

// traceSearch runs search inside a span that records its shape: the
// query's length, detail, limit, server filter and hits; the query text
// only with CaptureContent.
func (t *telemetry) traceSearch(ctx context.Context, query, detail string, limit int, server string,
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
		typ, _ := errorType(err)
		if _, ok := err.(*jsonrpc.Error); !ok {
			typ = errorTypeTool
		}
		span.SetAttributes(semconv.ErrorTypeKey.String(typ))
		span.SetStatus(codes.Error, t.clean(ctx, err.Error()))
	}
	return text, err
}

// traceProviderCall runs call, a tool call served by a provider of
// toolfold's own (provider.go), inside an INTERNAL span "tools/call
// server.tool", and counts it by provider, server and outcome. Upstream
// calls are traced by clientMiddleware instead.
func (t *telemetry) traceProviderCall(ctx context.Context, provider, server, tool string,
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
		outcome, _ = errorType(err)
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
