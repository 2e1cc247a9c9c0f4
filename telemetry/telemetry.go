package telemetry

import (
	"context"
	"errors"
	"log/slog"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/mcpconv"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// The files are split by what they observe:
//
//	telemetry.go  the tracer, the instruments, Config, these names
//	requests.go   MCP requests on both edges: spans, durations
//	context.go    trace context in params._meta, in and out
//	content.go    captured arguments and results (CaptureContent)
//	runs.go       toolfold's own operations: scripts, searches, provider calls

// instrumentation is the scope name of toolfold's tracer and meter. It
// names package proxy, where this code was first written: collectors'
// queries and dashboards select on it, so it stays.
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
	attrSlotWait          = attribute.Key("toolfold.script.slot_wait")    // seconds waited for a run slot (workspace.Slots)
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

// Config is what New builds the telemetry from. The zero value records
// nothing.
type Config struct {
	TracerProvider trace.TracerProvider // nil: no tracing (noop)
	MeterProvider  metric.MeterProvider // nil: no metrics (noop)
	// CaptureContent records tool arguments and results, script code and
	// search queries on spans, cut to 4 KiB each.
	CaptureContent bool
	Version        string       // the instrumentation version: toolfold's
	Logger         *slog.Logger // nil discards

	// Clean keeps personal data out of what spans record (the captured
	// content, error statuses): s with the personal data in it replaced.
	// Nil records text as it is (PII rewriting off).
	Clean func(ctx context.Context, s string) string
	// SessionTag stands for a session id in mcp.session.id, never the id
	// itself. Nil leaves the attribute out.
	SessionTag func(id string) string
	// ExpectedFailure reports a failed request that is part of normal
	// operation: its span gets no error status. Nil: none is.
	ExpectedFailure func(method string, err error) bool
	// Disconnected reports an error that means the connection to an
	// upstream was lost (error.type connection_closed). Nil: none does.
	Disconnected func(err error) bool
}

// Telemetry holds the tracer and instruments. A nil *Telemetry is valid
// and records nothing.
type Telemetry struct {
	tracer       trace.Tracer
	prop         propagation.TraceContext
	capture      bool
	scrub        func(ctx context.Context, s string) string // Config.Clean
	sessionTag   func(id string) string
	expected     func(method string, err error) bool
	disconnected func(err error) bool

	serverDur  mcpconv.ServerOperationDuration
	clientDur  mcpconv.ClientOperationDuration
	scriptRuns metric.Int64Counter
	toolCalls  metric.Int64Counter
	limitsHit  metric.Int64Counter
	keptBytes  metric.Int64Counter
	provCalls  metric.Int64Counter
}

// New builds the tracer and instruments from cfg; nil when neither
// provider is set.
func New(cfg Config) *Telemetry {
	if cfg.TracerProvider == nil && cfg.MeterProvider == nil {
		return nil
	}
	tp, mp := cfg.TracerProvider, cfg.MeterProvider
	if tp == nil {
		tp = tracenoop.NewTracerProvider()
	}
	if mp == nil {
		mp = metricnoop.NewMeterProvider()
	}
	t := &Telemetry{
		tracer:       tp.Tracer(instrumentation, trace.WithInstrumentationVersion(cfg.Version), trace.WithSchemaURL(semconv.SchemaURL)),
		capture:      cfg.CaptureContent,
		scrub:        cfg.Clean,
		sessionTag:   cfg.SessionTag,
		expected:     cfg.ExpectedFailure,
		disconnected: cfg.Disconnected,
	}
	if err := t.instruments(mp.Meter(instrumentation, metric.WithInstrumentationVersion(cfg.Version),
		metric.WithSchemaURL(semconv.SchemaURL))); err != nil && cfg.Logger != nil {
		cfg.Logger.Warn("telemetry: some instruments are disabled", "err", err)
	}
	return t
}

// instruments makes the histograms and counters; one that fails is a
// noop, and the failures are returned.
func (t *Telemetry) instruments(m metric.Meter) error {
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
	return errors.Join(errs[:]...)
}

func counter(m metric.Meter, name, unit, desc string) (metric.Int64Counter, error) {
	c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
	if err != nil {
		return metricnoop.Int64Counter{}, err
	}
	return c, nil
}
