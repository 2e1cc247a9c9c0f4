package proxy

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/sessiontag"
	"github.com/toolfold/toolfold/internal/testlog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// The telemetry as a whole Proxy wires it (package telemetry tests its
// parts alone): the span tree of a run, trace context across both edges,
// captured content, the metrics.

// capturedMax is the cut of each captured attribute (package telemetry).
const capturedMax = 4 << 10

// durationBuckets are the MCP duration histograms' advisory bounds.
var durationBuckets = []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300}

// telemetryRig records what the proxy's telemetry emits: spans in memory,
// metrics through a manual reader.
type telemetryRig struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	opts   *Options
}

func newTelemetryRig(t testing.TB, capture bool) *telemetryRig {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return &telemetryRig{spans: exp, reader: reader,
		opts: &Options{TracerProvider: tp, MeterProvider: mp, CaptureContent: capture}}
}

// trace returns the spans of the trace whose SERVER span is named root.
func (r *telemetryRig) trace(t *testing.T, root string) (tracetest.SpanStub, []tracetest.SpanStub) {
	t.Helper()
	all := r.spans.GetSpans()
	var server *tracetest.SpanStub
	for i, s := range all {
		if s.Name == root && s.SpanKind == trace.SpanKindServer {
			if server != nil {
				t.Fatalf("two %q spans", root)
			}
			server = &all[i]
		}
	}
	if server == nil {
		t.Fatalf("no SERVER span %q among %v", root, spanNames(all))
	}
	var tree []tracetest.SpanStub
	for _, s := range all {
		if s.SpanContext.TraceID() == server.SpanContext.TraceID() {
			tree = append(tree, s)
		}
	}
	return *server, tree
}

func (r *telemetryRig) metrics(t *testing.T) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

func spanNames(spans []tracetest.SpanStub) []string {
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
	}
	return names
}

func childrenOf(spans []tracetest.SpanStub, parent tracetest.SpanStub) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Parent.SpanID() == parent.SpanContext.SpanID() {
			out = append(out, s)
		}
	}
	return out
}

// attrs renders a span's attributes as strings.
func attrs(kvs []attribute.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.Emit()
	}
	return m
}

// checkAttrs reports the attributes of want that s lacks or has otherwise
// ("" means absent), naming the span.
func checkAttrs(t *testing.T, s tracetest.SpanStub, want map[string]string) {
	t.Helper()
	got := attrs(s.Attributes)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s = %q, want %q (all: %v)", s.Name, k, got[k], v, got)
		}
	}
}

// metaRecorder records the trace context each tools/call reaching an
// upstream carries in params._meta.
type metaRecorder struct {
	mu           sync.Mutex
	traceparents []string
}

func (r *metaRecorder) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if req, ok := req.(*mcp.CallToolRequest); ok {
			tp, _ := req.Params.Meta["traceparent"].(string)
			r.mu.Lock()
			r.traceparents = append(r.traceparents, tp)
			r.mu.Unlock()
		}
		return next(ctx, method, req)
	}
}

func (r *metaRecorder) got() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.traceparents)
}

// recordingUpstream is the test server over HTTP, recording _meta.
func recordingUpstream() (*metaRecorder, *mcp.Server) {
	rec := &metaRecorder{}
	srv := newTestServer()
	srv.AddReceivingMiddleware(rec.middleware)
	return rec, srv
}

func TestTraceRunScriptSpanTree(t *testing.T) {
	rig := newTelemetryRig(t, false)
	rec, srv := recordingUpstream()
	_, cs := startProxyWith(t, testConfig(httpUpstream(t, "calc", srv)), rig.opts)
	text, isErr := runLua(t, cs, `
local a = tools.calc.add{a = 1, b = 2}
local b = tools.calc.add{a = a.sum, b = 3}
print(pcall(function() return tools.calc.fail{} end))
return b.sum`)
	if isErr || !strings.Contains(text, "=> 6") {
		t.Fatalf("script: %q (isError %v)", text, isErr)
	}

	server, tree := rig.trace(t, "tools/call run_script")
	if server.Parent.IsValid() {
		t.Errorf("SERVER span has parent %v, want a root span", server.Parent)
	}
	checkAttrs(t, server, map[string]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "run_script", "gen_ai.operation.name": "execute_tool",
		"error.type": "", "gen_ai.tool.call.arguments": "", "gen_ai.tool.call.result": "",
	})
	if attrs(server.Attributes)["mcp.protocol.version"] == "" {
		t.Errorf("SERVER span lacks mcp.protocol.version: %v", attrs(server.Attributes))
	}

	scripts := childrenOf(tree, server)
	if len(scripts) != 1 || scripts[0].Name != "execute_script" || scripts[0].SpanKind != trace.SpanKindInternal {
		t.Fatalf("children of the SERVER span: %v, want one INTERNAL execute_script", spanNames(scripts))
	}
	script := scripts[0]
	checkAttrs(t, script, map[string]string{
		"toolfold.script.language": "lua", "toolfold.script.tool_calls": "3", "toolfold.outcome": "ok",
		"error.type": "", "toolfold.script.limit": "", "toolfold.script.code": "",
	})
	if attrs(script.Attributes)["toolfold.script.result_bytes"] == "0" {
		t.Errorf("script span: result_bytes 0, want the bytes of two sums")
	}

	calls := childrenOf(tree, script)
	if got, want := spanNames(calls), []string{"tools/call add", "tools/call add", "tools/call fail"}; !cmp.Equal(got, want) {
		t.Fatalf("children of the script span: %v, want %v", got, want)
	}
	if len(tree) != 5 {
		t.Errorf("trace holds %d spans (%v), want 5", len(tree), spanNames(tree))
	}
	for _, c := range calls {
		if c.SpanKind != trace.SpanKindClient {
			t.Errorf("%s: kind %v, want client", c.Name, c.SpanKind)
		}
		want := map[string]string{
			"mcp.method.name": "tools/call", "gen_ai.tool.name": strings.TrimPrefix(c.Name, "tools/call "),
			"gen_ai.operation.name": "execute_tool", "toolfold.upstream": "calc", "server.address": "127.0.0.1",
			"network.transport": "tcp", "error.type": "", "gen_ai.tool.call.arguments": "",
		}
		if c.Name == "tools/call fail" {
			want["error.type"] = "tool_error"
			if c.Status.Code != codes.Error {
				t.Errorf("%s: status %v, want Error", c.Name, c.Status)
			}
		} else if c.Status.Code == codes.Error {
			t.Errorf("%s: status %v, want unset", c.Name, c.Status)
		}
		checkAttrs(t, c, want)
		a := attrs(c.Attributes)
		if a["mcp.session.id"] == "" || a["server.port"] == "" || a["mcp.protocol.version"] == "" {
			t.Errorf("%s: lacks session id, server port or protocol version: %v", c.Name, a)
		}
	}

	// Each upstream request carried its own CLIENT span's context.
	var want []string
	for _, c := range calls {
		want = append(want, "00-"+c.SpanContext.TraceID().String()+"-"+c.SpanContext.SpanID().String()+"-01")
	}
	if diff := cmp.Diff(want, rec.got()); diff != "" {
		t.Errorf("traceparents upstream (-want +got):\n%s", diff)
	}

	checkMetrics(t, rig.metrics(t))
}

func checkMetrics(t *testing.T, ms map[string]metricdata.Aggregation) {
	t.Helper()
	for _, tc := range []struct {
		name string
		want map[string]string // attributes of one data point
	}{
		{"mcp.server.operation.duration", map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "run_script"}},
		{"mcp.client.operation.duration", map[string]string{"mcp.method.name": "tools/call", "gen_ai.tool.name": "fail",
			"toolfold.upstream": "calc", "error.type": "tool_error"}},
	} {
		h, ok := ms[tc.name].(metricdata.Histogram[float64])
		if !ok {
			t.Errorf("%s: %T, want a float64 histogram", tc.name, ms[tc.name])
			continue
		}
		found := false
		for _, dp := range h.DataPoints {
			if !cmp.Equal(dp.Bounds, durationBuckets) {
				t.Errorf("%s: bounds %v, want %v", tc.name, dp.Bounds, durationBuckets)
			}
			a := attrs(dp.Attributes.ToSlice())
			if matches(a, tc.want) && dp.Count == 1 {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no data point with %v", tc.name, tc.want)
		}
	}
	for _, tc := range []struct {
		name  string
		attrs map[string]string
		want  int64
	}{
		{"toolfold.script.runs", map[string]string{"toolfold.script.language": "lua", "toolfold.outcome": "ok"}, 1},
		{"toolfold.upstream.tool_calls", map[string]string{"toolfold.upstream": "calc", "toolfold.outcome": "ok"}, 2},
		{"toolfold.upstream.tool_calls", map[string]string{"toolfold.upstream": "calc", "toolfold.outcome": "tool_error"}, 1},
		{"toolfold.script.result_bytes", map[string]string{"toolfold.script.language": "lua"}, -1}, // > 0
	} {
		if got := sumOf(ms[tc.name], tc.attrs); got != tc.want && !(tc.want < 0 && got > 0) {
			t.Errorf("%s %v = %d, want %d", tc.name, tc.attrs, got, tc.want)
		}
	}
}

func matches(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

func sumOf(agg metricdata.Aggregation, want map[string]string) int64 {
	s, _ := agg.(metricdata.Sum[int64])
	var n int64
	for _, dp := range s.DataPoints {
		if matches(attrs(dp.Attributes.ToSlice()), want) {
			n += dp.Value
		}
	}
	return n
}

const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
)

// A client's traceparent in _meta is continued; the upstream gets ours.
func TestTraceContinuesClientTraceparent(t *testing.T) {
	rig := newTelemetryRig(t, false)
	rec, srv := recordingUpstream()
	_, cs := startProxyWith(t, testConfig(httpUpstream(t, "calc", srv)), rig.opts)
	callWithTraceparent(t, cs)

	server, tree := rig.trace(t, "tools/call run_script")
	if got := server.SpanContext.TraceID().String(); got != clientTraceID {
		t.Errorf("trace id %s, want the client's %s", got, clientTraceID)
	}
	if got := server.Parent.SpanID().String(); got != clientSpanID || !server.Parent.IsRemote() {
		t.Errorf("parent %s (remote %v), want the client's span %s", got, server.Parent.IsRemote(), clientSpanID)
	}
	if got := server.SpanContext.TraceState().String(); got != "vendor=opaque" {
		t.Errorf("tracestate %q, want the client's", got)
	}
	var client tracetest.SpanStub
	for _, s := range tree {
		if s.Name == "tools/call add" {
			client = s
		}
	}
	got := rec.got()
	if len(got) != 1 {
		t.Fatalf("upstream saw traceparents %q, want one", got)
	}
	sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(),
		propagation.MapCarrier{"traceparent": got[0]}))
	if sc.TraceID().String() != clientTraceID || sc.SpanID() != client.SpanContext.SpanID() || sc.SpanID().String() == clientSpanID {
		t.Errorf("upstream traceparent %q: want trace %s, parent our CLIENT span %s, not the client's %s",
			got[0], clientTraceID, client.SpanContext.SpanID(), clientSpanID)
	}
}

func callWithTraceparent(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Meta:      mcp.Meta{"traceparent": "00-" + clientTraceID + "-" + clientSpanID + "-01", "tracestate": "vendor=opaque"},
		Name:      "run_script",
		Arguments: map[string]any{"code": "return tools.calc.add{a = 1, b = 2}.sum"},
	})
	if err != nil || res.IsError {
		t.Fatalf("run_script: %v %+v", err, res)
	}
}

// Without telemetry, a client's trace context does not reach upstreams.
func TestNoTelemetryForwardsNoTraceContext(t *testing.T) {
	rec, srv := recordingUpstream()
	_, cs := startProxy(t, testConfig(httpUpstream(t, "calc", srv)))
	callWithTraceparent(t, cs)
	if got := rec.got(); !cmp.Equal(got, []string{""}) {
		t.Errorf("upstream saw traceparents %q, want none", got)
	}
}

// With noop providers the span context is the client's own (remote): it
// must not be injected upstream either.
func TestNoopTelemetryForwardsNoTraceContext(t *testing.T) {
	rec, srv := recordingUpstream()
	opts := &Options{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider()}
	_, cs := startProxyWith(t, testConfig(httpUpstream(t, "calc", srv)), opts)
	callWithTraceparent(t, cs)
	if got := rec.got(); !cmp.Equal(got, []string{""}) {
		t.Errorf("upstream saw traceparents %q, want none", got)
	}
}

// Over HTTP, a client that puts its trace context in the headers rather
// than in _meta is continued too.
func TestTraceContinuesHTTPHeaderTraceparent(t *testing.T) {
	rig := newTelemetryRig(t, false)
	p := New(testConfig(), rig.opts)
	t.Cleanup(p.Close)
	ts := httptest.NewServer(p.HTTPHandler(""))
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	hdr := withHeaders{"traceparent": "00-" + clientTraceID + "-" + clientSpanID + "-01"}
	tr := &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: &http.Client{Transport: hdr}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callText(t, cs, "search_tools", map[string]any{"query": "anything"})
	server, _ := rig.trace(t, "tools/call search_tools")
	if server.SpanContext.TraceID().String() != clientTraceID || server.Parent.SpanID().String() != clientSpanID {
		t.Errorf("SERVER span in trace %s under %s, want the header's %s under %s",
			server.SpanContext.TraceID(), server.Parent.SpanID(), clientTraceID, clientSpanID)
	}
	if got, want := attrs(server.Attributes)["mcp.session.id"], sessiontag.Of(cs.ID()); got != want || got == "" || got == cs.ID() {
		t.Errorf("mcp.session.id %q over streamable HTTP, want the session's tag %q, never its id", got, want)
	}
}

func TestTraceCaptureContent(t *testing.T) {
	rig := newTelemetryRig(t, true)
	_, cs := startProxyWith(t, testConfig(stdioUpstream("calc")), rig.opts)
	big := strings.Repeat("é", 3000) // 6000 bytes: cut
	text, isErr := runLua(t, cs, `tools.calc.add{a = 40, b = 2}
print(pcall(function() return tools.calc.fail{} end))
return call("calc.echo-text", {text = "`+big+`"}) ~= nil`)
	if isErr {
		t.Fatalf("script: %s", text)
	}
	server, tree := rig.trace(t, "tools/call run_script")
	if a := attrs(server.Attributes)["gen_ai.tool.call.arguments"]; !strings.Contains(a, "tools.calc.add{a = 40") {
		t.Errorf("SERVER arguments = %.200q, want the script", a)
	}
	if r := attrs(server.Attributes)["gen_ai.tool.call.result"]; !strings.Contains(r, "=> true") {
		t.Errorf("SERVER result = %.200q, want the output", r)
	}
	for _, s := range tree {
		a := attrs(s.Attributes)
		switch s.Name {
		case "execute_script":
			if !strings.Contains(a["toolfold.script.code"], "tools.calc.add") {
				t.Errorf("script code = %.200q", a["toolfold.script.code"])
			}
		case "tools/call add":
			checkAttrs(t, s, map[string]string{"gen_ai.tool.call.arguments": `{"a":40,"b":2}`, "gen_ai.tool.call.result": `{"sum":42}`})
		case "tools/call fail":
			checkAttrs(t, s, map[string]string{"toolfold.tool_error.message": "disk quota exceeded on volume 7", "gen_ai.tool.call.result": ""})
			if s.Status.Description != "disk quota exceeded on volume 7" {
				t.Errorf("fail status %q", s.Status.Description)
			}
		case "tools/call echo-text":
			r := a["gen_ai.tool.call.result"]
			if len(r) > capturedMax+40 || !strings.HasSuffix(r, "more bytes]") || !strings.HasPrefix(r, "éé") {
				t.Errorf("echo result: %d bytes, ends %q; want it cut to %d", len(r), r[max(0, len(r)-30):], capturedMax)
			}
		}
	}
}

func TestTraceScriptLimit(t *testing.T) {
	rig := newTelemetryRig(t, false)
	cfg := testConfig()
	cfg.Sandbox.Timeout = 500 * time.Millisecond
	_, cs := startProxyWith(t, cfg, rig.opts)
	if text, isErr := runLua(t, cs, "while true do end"); !isErr {
		t.Fatalf("endless loop: %q, want a timeout", text)
	}
	server, tree := rig.trace(t, "tools/call run_script")
	checkAttrs(t, server, map[string]string{"error.type": "tool_error"})
	script := childrenOf(tree, server)[0]
	checkAttrs(t, script, map[string]string{"error.type": "timeout", "toolfold.script.limit": "timeout", "toolfold.outcome": "timeout"})
	if script.Status.Code != codes.Error || strings.Contains(script.Status.Description, "sandbox.timeout") {
		t.Errorf("script status %v, want Error without the message (content is off)", script.Status)
	}
	ms := rig.metrics(t)
	if n := sumOf(ms["toolfold.script.limits_hit"], map[string]string{"toolfold.script.limit": "timeout"}); n != 1 {
		t.Errorf("limits_hit{timeout} = %d, want 1", n)
	}
	if n := sumOf(ms["toolfold.script.runs"], map[string]string{"toolfold.outcome": "timeout"}); n != 1 {
		t.Errorf("runs{timeout} = %d, want 1", n)
	}
}

func TestTraceSearchAndErrors(t *testing.T) {
	rig := newTelemetryRig(t, false)
	_, cs := startProxyWith(t, testConfig(stdioUpstream("calc")), rig.opts)
	callText(t, cs, "search_tools", map[string]any{"query": "sum of two numbers", "detail": "name"})
	server, tree := rig.trace(t, "tools/call search_tools")
	search := childrenOf(tree, server)
	if len(search) != 1 || search[0].Name != "search_tools" || search[0].SpanKind != trace.SpanKindInternal {
		t.Fatalf("children of search_tools: %v", spanNames(search))
	}
	checkAttrs(t, search[0], map[string]string{"toolfold.search.query_length": "18", "toolfold.search.detail": "name",
		"toolfold.search.query": "", "error.type": ""})
	if attrs(search[0].Attributes)["toolfold.search.hits"] == "0" {
		t.Errorf("search span: 0 hits")
	}

	// A malformed request: error.type is the JSON-RPC code.
	rig.spans.Reset()
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{}}); err == nil {
		t.Fatal("run_script without code succeeded")
	}
	server, _ = rig.trace(t, "tools/call run_script")
	checkAttrs(t, server, map[string]string{"error.type": "-32602", "rpc.response.status_code": "-32602"})
	if server.Status.Code != codes.Error {
		t.Errorf("status %v, want Error", server.Status)
	}
}

// olderHTTP serves server over streamable HTTP on loopback, like
// httpUpstream, but answers server/discover 404, as a server older than
// 2026-07-28 may: the go-sdk falls back to initialize.
func olderHTTP(t *testing.T, name string, server *mcp.Server) config.Upstream {
	t.Helper()
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"server/discover"`)) {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return config.Upstream{Name: name, Transport: "http", URL: ts.URL, ConnectTimeout: upstreamTimeout, CallTimeout: upstreamTimeout}
}

// The proxy hands the telemetry what it needs of the proxy: an older
// server's failed server/discover is expected (no error status), and an
// upstream that dies mid-call is connection_closed (upstream.Disconnected).
func TestTraceExpectedAndDisconnected(t *testing.T) {
	setVar(t, &reconnectBackoff, 50*time.Millisecond)
	rig := newTelemetryRig(t, false)
	_, cs := startProxyWith(t, testConfig(olderHTTP(t, "calc", newTestServer()), stdioUpstream("std")), rig.opts)
	if text, isErr := runLua(t, cs, `print(pcall(function() return tools.std.crash{} end))`); isErr {
		t.Fatalf("script: %s", text)
	}
	var discover, crash *tracetest.SpanStub
	spans := rig.spans.GetSpans()
	for i, s := range spans {
		a := attrs(s.Attributes)
		switch {
		case s.SpanKind != trace.SpanKindClient:
		case s.Name == "server/discover" && a["toolfold.upstream"] == "calc" && a["error.type"] != "":
			discover = &spans[i]
		case s.Name == "tools/call crash":
			crash = &spans[i]
		}
	}
	if discover == nil || crash == nil {
		t.Fatalf("no failed server/discover of calc or no tools/call crash CLIENT span among %v", spanNames(spans))
	}
	if discover.Status.Code != codes.Unset {
		t.Errorf("calc's failed server/discover has status %v, want none: the fallback is expected", discover.Status)
	}
	if got := attrs(crash.Attributes)["error.type"]; got != "connection_closed" || crash.Status.Code != codes.Error {
		t.Errorf("tools/call crash: error.type %q, status %v; want connection_closed, Error", got, crash.Status)
	}
}
