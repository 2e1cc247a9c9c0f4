package telemetry

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/mcptext"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
)

// The spans and duration histograms of MCP requests on both edges: a
// SERVER span for each request a client sends toolfold (ServerMiddleware),
// a CLIENT span for each request toolfold sends an upstream
// (ClientMiddleware), with the attributes the conventions name.

// ServerMiddleware traces and times every request the client sends: a
// SERVER span continuing the client's trace from params._meta.
func (t *Telemetry) ServerMiddleware() mcp.Middleware {
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

// ClientMiddleware traces and times every request toolfold sends to one
// upstream: a CLIENT span, child of the script's span when a script made
// the call, whose context replaces any trace context in params._meta.
func (t *Telemetry) ClientMiddleware(up config.Upstream) mcp.Middleware {
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
func (t *Telemetry) observe(ctx context.Context, kind trace.SpanKind, op operation, req mcp.Request, params mcp.Params,
	peer []attribute.KeyValue, next mcp.MethodHandler) (res mcp.Result, err error) {
	start := time.Now()
	ctx, span := t.tracer.Start(ctx, op.spanName(), trace.WithSpanKind(kind))
	if kind == trace.SpanKindClient {
		setTraceMeta(ctx, params, t)
	}
	ended := false
	defer func() {
		if !ended { // a panic below: the proxy's recover entry reports it
			span.SetStatus(codes.Error, "panic")
			span.End()
		}
	}()
	res, err = next(ctx, op.method, req)
	ended = true
	op.finish(req, params, res, err, t.errorType)
	if span.IsRecording() {
		span.SetAttributes(op.spanAttrs(req, peer, t.sessionTag)...)
		if t.capture {
			span.SetAttributes(t.capturedAttrs(ctx, params, res)...)
		}
		if op.errType != "" && !t.expectedFailure(op.method, err) {
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
func (t *Telemetry) statusText(res mcp.Result, err error) string {
	if err != nil {
		return err.Error()
	}
	if r, ok := res.(*mcp.CallToolResult); ok && t.capture {
		return truncate(mcptext.Text(r.Content))
	}
	return errorTypeTool
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

// finish records what the request's outcome and session tell; classify
// is Telemetry.errorType.
func (op *operation) finish(req mcp.Request, params mcp.Params, res mcp.Result, err error, classify func(error) (string, string)) {
	op.protocol = protocolVersion(req, params)
	switch {
	case err != nil:
		op.errType, op.rpcCode = classify(err)
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

// spanAttrs are the metric attributes plus the method and session (its
// tag: sessionTag, nil leaving it out).
func (op *operation) spanAttrs(req mcp.Request, peer []attribute.KeyValue, sessionTag func(string) string) []attribute.KeyValue {
	attrs := append(op.metricAttrs(peer), semconv.McpMethodNameKey.String(op.method))
	if id := sessionID(req.GetSession()); id != "" && sessionTag != nil {
		// The tag, not the id: a collector is one more log.
		attrs = append(attrs, semconv.McpSessionID(sessionTag(id)))
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

// expectedFailure reports a failure that is part of normal operation
// (Config.ExpectedFailure): its span gets no error status.
func (t *Telemetry) expectedFailure(method string, err error) bool {
	return t.expected != nil && t.expected(method, err)
}

func isToolError(res mcp.Result) bool {
	r, ok := res.(*mcp.CallToolResult)
	return ok && r != nil && r.IsError
}

// errorType classifies err for error.type; rpcCode is the JSON-RPC error
// code, when err is one.
func (t *Telemetry) errorType(err error) (typ, rpcCode string) {
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr):
		code := strconv.FormatInt(werr.Code, 10)
		return code, code
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout", ""
	case errors.Is(err, context.Canceled):
		return "canceled", ""
	case t.disconnected != nil && t.disconnected(err):
		return "connection_closed", ""
	}
	return semconv.ErrorType(err).Value.AsString(), ""
}
