package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// Bounds of the OTLP receiver: what one export may weigh, and how much a test
// keeps (a runaway exporter fills neither memory nor the log).
const (
	maxExportBytes = 16 << 20
	maxKeptSpans   = 10_000
)

// flushWait is how long exports may take to arrive after toolfold exits:
// a hang guard for a slow receiver on a loaded machine.
var flushWait = testlog.Bound(time.Minute)

// TestTelemetryOTLP runs `toolfold serve` with OTLP export to a receiver in the
// test, once over gRPC (configured in proxy.yaml's telemetry section) and once
// over HTTP (configured with OTEL_* variables, which win over a section that
// points elsewhere). In each run a script makes two tool calls, and the spans
// that arrive must form one tree per request: the SERVER span `tools/call
// run_script`, an INTERNAL span for the script, and a CLIENT span `tools/call
// read_text_file` per call, in one trace; a traceparent the client puts in
// _meta is continued. The spans are exported when toolfold exits, so arriving
// at all shows that shutdown flushes.
func TestTelemetryOTLP(t *testing.T) {
	t.Parallel()
	root := fsRoot(t)
	fs := npmUpstream(t, "filesystem", root)

	t.Run("grpc", func(t *testing.T) {
		t.Parallel()
		rcv := startReceiver(t)
		cfg := writeConfig(t, configYAML(map[string]upstream{"filesystem": fs})+fmt.Sprintf(`telemetry:
  traces_exporter: otlp
  metrics_exporter: otlp
  protocol: grpc
  endpoint: %s
  headers: {x-e2e-token: "${E2E_OTLP_TOKEN:-unset}"}
`, quote(rcv.grpcURL)))

		// check says where telemetry goes, and exports nothing itself.
		r := runCLI(t, "check", "-c", cfg)
		want := fmt.Sprintf("telemetry: traces → otlp grpc %s with headers x-e2e-token; metrics → otlp grpc %[1]s with headers x-e2e-token\n", rcv.grpcURL)
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("toolfold check: exit %d, want the line %q in:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
		}

		p := startStdioEnv(t, cfg, "E2E_OTLP_TOKEN=s3cret")
		calls := tracedCalls(t, p, root)
		spans := rcv.waitSpans(t, "grpc", len(calls))
		checkTraces(t, spans, calls, "toolfold")
		rcv.checkMetrics(t, "grpc")
		rcv.checkHeader(t, "x-e2e-token", "s3cret")
		if n := len(rcv.spansFrom("http")); n > 0 {
			t.Errorf("%d spans arrived over HTTP; all should come over gRPC", n)
		}
	})

	t.Run("http", func(t *testing.T) {
		t.Parallel()
		rcv := startReceiver(t)
		// The section points at the gRPC side; the environment wins.
		cfg := writeConfig(t, configYAML(map[string]upstream{"filesystem": fs})+fmt.Sprintf(`telemetry:
  service_name: from-the-file
  traces_exporter: otlp
  protocol: grpc
  endpoint: %s
`, quote(rcv.grpcURL)))
		p := startStdioEnv(t, cfg,
			"OTEL_EXPORTER_OTLP_ENDPOINT="+rcv.httpURL,
			"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
			"OTEL_SERVICE_NAME=toolfold-e2e",
			"OTEL_EXPORTER_OTLP_HEADERS=x-e2e-token=from%20env",
		)
		calls := tracedCalls(t, p, root)
		spans := rcv.waitSpans(t, "http", len(calls))
		checkTraces(t, spans, calls, "toolfold-e2e")
		rcv.checkMetrics(t, "http")
		rcv.checkHeader(t, "x-e2e-token", "from env")
		if n := len(rcv.spansFrom("grpc")); n > 0 {
			t.Errorf("%d spans arrived over gRPC; OTEL_EXPORTER_OTLP_* should have won over the config's endpoint", n)
		}
	})
}

// TestTelemetryConsole: the console exporters write to stderr, so the stdio
// transport on stdout keeps working, and the spans are there once toolfold
// exits.
func TestTelemetryConsole(t *testing.T) {
	t.Parallel()
	root := fsRoot(t)
	cfg := writeConfig(t, configYAML(map[string]upstream{"filesystem": npmUpstream(t, "filesystem", root)}))
	p := startStdioEnv(t, cfg, "OTEL_TRACES_EXPORTER=console", "OTEL_METRICS_EXPORTER=console")
	tracedCalls(t, p, root)
	out := p.stderr.String()
	for _, want := range []string{`"Name":"tools/call run_script"`, `"Name":"tools/call read_text_file"`, `"Name":"mcp.server.operation.duration"`} {
		if !strings.Contains(out, want) {
			t.Errorf("toolfold's stderr lacks %s:\n%s", want, out)
		}
	}
}

// tracedCall is one run_script call the test made, and the trace context it
// sent in _meta, if any.
type tracedCall struct {
	traceID, parentID string // hex; empty without a traceparent
}

// tracedCalls makes two run_script calls, each reading two files, the second
// with a traceparent in _meta; then it closes the session, which ends
// toolfold and so flushes its telemetry.
func tracedCalls(t *testing.T, p *toolfoldProc, root string) []tracedCall {
	t.Helper()
	code := lua(`
local a = tools.filesystem.read_text_file{path = {{a}}}.content
local b = tools.filesystem.read_text_file{path = {{b}}}.content
return #a + #b`, "a", filepath.Join(root, "notes.txt"), "b", filepath.Join(root, "todo.txt"))
	want := len(fsFiles["notes.txt"]) + len(fsFiles["todo.txt"])
	calls := []tracedCall{{}, {traceID: "4bf92f3577b34da6a3ce929d0e0e4736", parentID: "00f067aa0ba902b7"}}
	for _, c := range calls {
		params := &mcp.CallToolParams{Name: "run_script", Arguments: map[string]any{"code": code, "language": "lua"}}
		if c.traceID != "" {
			params.Meta = mcp.Meta{"traceparent": "00-" + c.traceID + "-" + c.parentID + "-01"}
		}
		res, err := p.cs.CallTool(testCtx(t, callTimeout), params)
		if err != nil {
			t.Fatalf("run_script: %v", err)
		}
		out := text(res)
		if res.IsError || footerCalls(t, out) != 2 {
			t.Fatalf("run_script: isError %v, want 2 tool calls:\n%s", res.IsError, out)
		}
		var n int
		if returned(t, out, &n); n != want {
			t.Fatalf("run_script returned %d, want %d", n, want)
		}
	}
	p.close()
	return calls
}

// checkTraces finds, for each call, its span tree among spans.
func checkTraces(t *testing.T, spans []span, calls []tracedCall, service string) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("spans received:\n%s", formatSpans(spans))
		}
	}()
	var servers []span
	for _, s := range spans {
		if s.kind == tracepb.Span_SPAN_KIND_SERVER && s.name == "tools/call run_script" {
			servers = append(servers, s)
		}
		if s.service != service {
			t.Errorf("span %q has service.name %q, want %q", s.name, s.service, service)
			return
		}
	}
	if len(servers) != len(calls) {
		t.Fatalf("%d SERVER spans named \"tools/call run_script\", want %d (one per call)", len(servers), len(calls))
	}
	for _, c := range calls {
		var srv span
		for _, s := range servers {
			continued := slices.ContainsFunc(calls, func(c tracedCall) bool { return c.traceID != "" && c.traceID == s.traceID })
			if c.traceID != "" && s.traceID == c.traceID || c.traceID == "" && !continued {
				srv = s
			}
		}
		switch {
		case srv.spanID == "" && c.traceID != "":
			t.Fatalf("no SERVER span continues the client's trace %s", c.traceID)
		case srv.spanID == "":
			t.Fatalf("no SERVER span in a trace of its own")
		case srv.parentID != c.parentID:
			t.Errorf("SERVER span's parent is %q, want %q (the client's span from _meta)", srv.parentID, c.parentID)
		}
		if got := srv.attrs["mcp.method.name"]; got != "tools/call" {
			t.Errorf("SERVER span's mcp.method.name is %q, want tools/call", got)
		}
		scripts := children(spans, srv, tracepb.Span_SPAN_KIND_INTERNAL)
		if len(scripts) != 1 {
			t.Fatalf("the SERVER span of trace %s has %d INTERNAL children, want 1 (the script)", srv.traceID, len(scripts))
		}
		var names []string
		for _, s := range children(spans, scripts[0], tracepb.Span_SPAN_KIND_CLIENT) {
			names = append(names, s.name)
			if got := s.attrs["mcp.method.name"]; got != "tools/call" {
				t.Errorf("CLIENT span %q: mcp.method.name is %q, want tools/call", s.name, got)
			}
		}
		if want := []string{"tools/call read_text_file", "tools/call read_text_file"}; !slices.Equal(names, want) {
			t.Errorf("CLIENT children of the script span %q: %q, want %q", scripts[0].name, names, want)
		}
	}
}

// children returns the spans of kind whose parent is p, in p's trace.
func children(spans []span, p span, kind tracepb.Span_SpanKind) []span {
	var out []span
	for _, s := range spans {
		if s.traceID == p.traceID && s.parentID == p.spanID && s.kind == kind {
			out = append(out, s)
		}
	}
	return out
}

// span is the part of a received span the test looks at.
type span struct {
	traceID, spanID, parentID string // hex
	name                      string
	kind                      tracepb.Span_SpanKind
	service                   string            // the resource's service.name
	attrs                     map[string]string // string attributes
	via                       string            // "grpc" or "http"
}

func formatSpans(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "  %s %s parent=%s %s %q via %s\n", s.traceID, s.spanID, s.parentID, s.kind, s.name, s.via)
	}
	return b.String()
}

// receiver is an OTLP receiver for traces and metrics, over gRPC and HTTP
// (protobuf bodies), built from go.opentelemetry.io/proto/otlp.
type receiver struct {
	coltracepb.UnimplementedTraceServiceServer

	grpcURL string // http://127.0.0.1:PORT (plaintext gRPC)
	httpURL string // http://127.0.0.1:PORT, the base for /v1/traces and /v1/metrics

	mu      sync.Mutex
	spans   []span
	metrics map[string][]string // by transport, metric names
	headers map[string][]string // values of every header seen, by lowercase name
	arrived chan struct{}       // signalled (without blocking) after each export
}

func startReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{metrics: map[string][]string{}, headers: map[string][]string{}, arrived: make(chan struct{}, 1)}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(grpc.MaxRecvMsgSize(maxExportBytes), grpc.ConnectionTimeout(10*time.Second))
	coltracepb.RegisterTraceServiceServer(srv, r)
	colmetricpb.RegisterMetricsServiceServer(srv, metricsService{r: r})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop) // Stop, not GracefulStop: never wait on a client
	r.grpcURL = "http://" + ln.Addr().String()

	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, req *http.Request) {
		var msg coltracepb.ExportTraceServiceRequest
		if readProto(w, req, &msg) {
			r.addSpans("http", msg.GetResourceSpans(), req.Header)
			writeProto(w, &coltracepb.ExportTraceServiceResponse{})
		}
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, req *http.Request) {
		var msg colmetricpb.ExportMetricsServiceRequest
		if readProto(w, req, &msg) {
			r.addMetrics("http", msg.GetResourceMetrics(), req.Header)
			writeProto(w, &colmetricpb.ExportMetricsServiceResponse{})
		}
	})
	hs := httptest.NewUnstartedServer(mux)
	hs.Config.ReadHeaderTimeout = 10 * time.Second
	hs.Config.ReadTimeout = 30 * time.Second
	hs.Start()
	t.Cleanup(hs.Close)
	r.httpURL = hs.URL
	return r
}

// readProto decodes an OTLP/HTTP protobuf body into msg, bounded, answering
// the request itself when it cannot.
func readProto(w http.ResponseWriter, req *http.Request, msg proto.Message) bool {
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "want Content-Type application/x-protobuf, got "+ct, http.StatusUnsupportedMediaType)
		return false
	}
	var body io.Reader = http.MaxBytesReader(w, req.Body, maxExportBytes)
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return false
		}
		defer zr.Close()
		body = io.LimitReader(zr, maxExportBytes)
	}
	data, err := io.ReadAll(body)
	if err == nil {
		err = proto.Unmarshal(data, msg)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return false
	}
	return true
}

func writeProto(w http.ResponseWriter, msg proto.Message) {
	data, _ := proto.Marshal(msg)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = io.Copy(w, bytes.NewReader(data))
}

func (r *receiver) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	r.addSpans("grpc", req.GetResourceSpans(), grpcHeaders(ctx))
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// metricsService adapts the receiver to MetricsServiceServer, whose Export
// method has the same name as the trace service's.
type metricsService struct {
	colmetricpb.UnimplementedMetricsServiceServer
	r *receiver
}

func (m metricsService) Export(ctx context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	m.r.addMetrics("grpc", req.GetResourceMetrics(), grpcHeaders(ctx))
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

func (r *receiver) addSpans(via string, rss []*tracepb.ResourceSpans, h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noteHeaders(h)
	for _, rs := range rss {
		service := stringAttrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				if len(r.spans) >= maxKeptSpans {
					break
				}
				r.spans = append(r.spans, span{
					traceID: hex.EncodeToString(s.GetTraceId()), spanID: hex.EncodeToString(s.GetSpanId()),
					parentID: hex.EncodeToString(s.GetParentSpanId()), name: s.GetName(), kind: s.GetKind(),
					service: service, attrs: stringAttrs(s.GetAttributes()), via: via,
				})
			}
		}
	}
	r.signal()
}

func (r *receiver) addMetrics(via string, rms []*metricpb.ResourceMetrics, h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.noteHeaders(h)
	for _, rm := range rms {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				if len(r.metrics[via]) < maxKeptSpans {
					r.metrics[via] = append(r.metrics[via], m.GetName())
				}
			}
		}
	}
	r.signal()
}

func (r *receiver) noteHeaders(h http.Header) {
	for k, vs := range h {
		k = strings.ToLower(k)
		if len(r.headers[k]) < 100 {
			r.headers[k] = append(r.headers[k], vs...)
		}
	}
}

func (r *receiver) signal() {
	select {
	case r.arrived <- struct{}{}:
	default:
	}
}

func (r *receiver) spansFrom(via string) []span {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []span
	for _, s := range r.spans {
		if s.via == via {
			out = append(out, s)
		}
	}
	return out
}

// waitSpans waits up to flushWait for the SERVER spans of n run_script calls to
// have arrived via, then returns every span that came that way. toolfold has
// exited by now, having flushed; the wait covers a slow receiver only.
func (r *receiver) waitSpans(t *testing.T, via string, n int) []span {
	t.Helper()
	ctx := testCtx(t, flushWait)
	for {
		spans := r.spansFrom(via)
		count := 0
		for _, s := range spans {
			if s.kind == tracepb.Span_SPAN_KIND_SERVER && s.name == "tools/call run_script" {
				count++
			}
		}
		if count >= n {
			return spans
		}
		select {
		case <-r.arrived:
		case <-ctx.Done():
			t.Fatalf("after toolfold exited, %d of %d run_script SERVER spans arrived over %s within %v: it must flush before exiting; spans:\n%s",
				count, n, via, flushWait, formatSpans(spans))
		}
	}
}

// checkMetrics wants the MCP operation duration histograms among the metrics
// that arrived via.
func (r *receiver) checkMetrics(t *testing.T, via string) {
	t.Helper()
	ctx := testCtx(t, flushWait)
	want := []string{"mcp.server.operation.duration", "mcp.client.operation.duration"}
	for {
		r.mu.Lock()
		got := slices.Clone(r.metrics[via])
		r.mu.Unlock()
		missing := slices.DeleteFunc(slices.Clone(want), func(name string) bool { return slices.Contains(got, name) })
		if len(missing) == 0 {
			return
		}
		select {
		case <-r.arrived:
		case <-ctx.Done():
			t.Errorf("metrics %v did not arrive over %s; got %v", missing, via, got)
			return
		}
	}
}

// checkHeader wants every export to have carried header name with value.
func (r *receiver) checkHeader(t *testing.T, name, value string) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	vs := r.headers[name]
	if len(vs) == 0 || slices.ContainsFunc(vs, func(v string) bool { return v != value }) {
		t.Errorf("header %s on exports: %q, want %q on every one", name, vs, value)
	}
}

func stringAttrs(kvs []*commonpb.KeyValue) map[string]string {
	m := map[string]string{}
	for _, kv := range kvs {
		if v, ok := kv.GetValue().GetValue().(*commonpb.AnyValue_StringValue); ok {
			m[kv.GetKey()] = v.StringValue
		}
	}
	return m
}

// grpcHeaders is the request metadata of a gRPC call, as headers.
func grpcHeaders(ctx context.Context) http.Header {
	md, _ := metadata.FromIncomingContext(ctx)
	return http.Header(md)
}
