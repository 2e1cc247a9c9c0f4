package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// The telemetry alone, each part against the SDK in memory. The proxy's
// tests check it as a whole Proxy wires it (proxy/telemetry_test.go).

// rig records spans in memory and metrics through a manual reader.
type rig struct {
	spans  *tracetest.InMemoryExporter
	reader *sdkmetric.ManualReader
	cfg    Config
}

func newRig(t testing.TB, capture bool) *rig {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() {
		_ = tp.Shutdown(context.Background())
		_ = mp.Shutdown(context.Background())
	})
	return &rig{spans: exp, reader: reader, cfg: Config{TracerProvider: tp, MeterProvider: mp, CaptureContent: capture,
		Version: "test", Logger: slog.New(slog.DiscardHandler)}}
}

// only returns the one span recorded.
func (r *rig) only(t *testing.T) tracetest.SpanStub {
	t.Helper()
	spans := r.spans.GetSpans()
	if len(spans) != 1 {
		t.Fatalf("%d spans, want one", len(spans))
	}
	return spans[0]
}

// sum is the total of the int64 counter name's points with attribute
// key = value.
func (r *rig) sum(t *testing.T, name string, key attribute.Key, value string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			s, _ := m.Data.(metricdata.Sum[int64])
			for _, dp := range s.DataPoints {
				if v, ok := dp.Attributes.Value(key); m.Name == name && ok && v.Emit() == value {
					n += dp.Value
				}
			}
		}
	}
	return n
}

func attrOf(s tracetest.SpanStub, key string) string {
	for _, kv := range s.Attributes {
		if string(kv.Key) == key {
			return kv.Value.Emit()
		}
	}
	return ""
}

func calcUpstream() config.Upstream { return config.Upstream{Name: "calc", Transport: "stdio"} }

// callRequest is a tools/call toward an upstream, carrying a client's
// trace context in _meta.
func callRequest(args string) *mcp.ClientRequest[*mcp.CallToolParams] {
	return &mcp.ClientRequest[*mcp.CallToolParams]{Params: &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(args),
		Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "tracestate": "k=v", "other": "kept"}}}
}

// The upstream edge replaces a request's trace context with its CLIENT
// span's, and without telemetry only strips it; other _meta keys stay.
func TestClientMiddlewareTraceContext(t *testing.T) {
	r := newRig(t, false)
	for _, tc := range []struct {
		name string
		tel  *Telemetry
	}{{"nil", nil}, {"sdk", New(r.cfg)}} {
		var got mcp.Meta
		next := func(_ context.Context, _ string, req mcp.Request) (mcp.Result, error) {
			got = req.GetParams().GetMeta()
			return &mcp.CallToolResult{}, nil
		}
		req := callRequest(`{}`)
		orig := req.Params.Meta
		if _, err := tc.tel.ClientMiddleware(calcUpstream())(next)(context.Background(), "tools/call", req); err != nil {
			t.Fatal(err)
		}
		want := ""
		if tc.tel != nil {
			sc := r.only(t).SpanContext
			want = "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"
		}
		if tp, _ := got["traceparent"].(string); tp != want || got["tracestate"] != nil || got["other"] != "kept" {
			t.Errorf("%s: upstream got _meta %v, want traceparent %q, no tracestate, other kept", tc.name, got, want)
		}
		if orig["tracestate"] != "k=v" || len(orig) != 3 {
			t.Errorf("%s: the caller's _meta map was changed: %v", tc.name, orig)
		}
	}
}

// Config's functions are what the spans go through: Clean for captured
// content and statuses, ExpectedFailure for the status, Disconnected for
// error.type.
func TestConfigFuncs(t *testing.T) {
	lost := errors.New("pipe gone")
	for _, tc := range []struct {
		name       string
		cfg        func(*Config)
		method     string
		err        error
		wantType   string
		wantStatus codes.Code
	}{
		{"failure", nil, "server/discover", errors.New("no such method"), "*errors.errorString", codes.Error},
		{"expected", func(c *Config) {
			c.ExpectedFailure = func(method string, err error) bool { return method == "server/discover" }
		}, "server/discover", errors.New("no such method"), "*errors.errorString", codes.Unset},
		{"not disconnected", nil, "tools/call", lost, "*errors.errorString", codes.Error},
		{"disconnected", func(c *Config) { c.Disconnected = func(err error) bool { return err == lost } },
			"tools/call", lost, "connection_closed", codes.Error},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, false)
			if tc.cfg != nil {
				tc.cfg(&r.cfg)
			}
			next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return nil, tc.err }
			New(r.cfg).ClientMiddleware(calcUpstream())(next)(context.Background(), tc.method, callRequest(`{}`))
			s := r.only(t)
			if got := attrOf(s, "error.type"); got != tc.wantType || s.Status.Code != tc.wantStatus {
				t.Errorf("error.type %q, status %v; want %q, %v", got, s.Status.Code, tc.wantType, tc.wantStatus)
			}
		})
	}
}

// Captured content and error statuses pass through Clean.
func TestCleanCapturedContent(t *testing.T) {
	r := newRig(t, true)
	r.cfg.Clean = func(_ context.Context, s string) string {
		return strings.ReplaceAll(s, "alice@example.com", "[EMAIL_1]")
	}
	tel := New(r.cfg)
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no user alice@example.com"}}}, nil
	}
	tel.ClientMiddleware(calcUpstream())(next)(context.Background(), "tools/call", callRequest(`{"to":"alice@example.com"}`))
	s := r.only(t)
	for key, want := range map[string]string{"gen_ai.tool.call.arguments": `{"to":"[EMAIL_1]"}`,
		"toolfold.tool_error.message": "no user [EMAIL_1]", "error.type": "tool_error"} {
		if got := attrOf(s, key); got != want {
			t.Errorf("%s = %q, want %q", key, got, want)
		}
	}
	if s.Status.Description != "no user [EMAIL_1]" {
		t.Errorf("status %q, want it cleaned", s.Status.Description)
	}
	if n := r.sum(t, "toolfold.upstream.tool_calls", "toolfold.outcome", "tool_error"); n != 1 {
		t.Errorf("tool_calls{tool_error} = %d, want 1", n)
	}
}

// A SERVER span continues the client's trace from params._meta.
func TestServerMiddlewareContinuesTrace(t *testing.T) {
	r := newRig(t, false)
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "run_script", Arguments: json.RawMessage(`{}`),
		Meta: mcp.Meta{"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) { return &mcp.CallToolResult{}, nil }
	if _, err := New(r.cfg).ServerMiddleware()(next)(context.Background(), "tools/call", req); err != nil {
		t.Fatal(err)
	}
	s := r.only(t)
	if s.Name != "tools/call run_script" || s.SpanKind != trace.SpanKindServer ||
		s.SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" || s.Parent.SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("span %q kind %v in trace %s under %s, want the client's", s.Name, s.SpanKind, s.SpanContext.TraceID(), s.Parent.SpanID())
	}
}

// The cost of the telemetry middleware on one request, both edges, with
// no telemetry configured (nil), noop providers, and the SDK recording
// (in memory), against no middleware at all:
//
//	go test -run '^$' -bench Telemetry -benchmem ./telemetry
func BenchmarkTelemetryMiddleware(b *testing.B) {
	handler := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		return &mcp.CallToolResult{}, nil
	}
	sdk := newRig(b, false)
	for _, tc := range []struct {
		name string
		tel  *Telemetry
		none bool
	}{
		{"none", nil, true},
		{"nil", nil, false},
		{"noop", New(Config{TracerProvider: tracenoop.NewTracerProvider(), MeterProvider: metricnoop.NewMeterProvider(), Version: "bench"}), false},
		{"sdk", New(sdk.cfg), false},
	} {
		server, client := mcp.MethodHandler(handler), mcp.MethodHandler(handler)
		if !tc.none {
			server = tc.tel.ServerMiddleware()(handler)
			client = tc.tel.ClientMiddleware(calcUpstream())(handler)
		}
		ctx := context.Background()
		b.Run("server/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "run_script", Arguments: json.RawMessage(`{"code":"return 1"}`)}}
				if _, err := server(ctx, "tools/call", req); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("upstream/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				req := &mcp.ClientRequest[*mcp.CallToolParams]{Params: &mcp.CallToolParams{Name: "add", Arguments: json.RawMessage(`{"a":1,"b":2}`)}}
				if _, err := client(ctx, "tools/call", req); err != nil {
					b.Fatal(err)
				}
			}
		})
		sdk.spans.Reset()
	}
}
