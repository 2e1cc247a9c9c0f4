package main

// OpenTelemetry: this file is the only place in toolfold that imports the
// SDK and its exporters. The proxy package uses the API alone and gets the
// providers through proxy.Options; with nothing configured it gets nil
// providers, so telemetry costs nothing.
//
// Where telemetry goes comes from proxy.yaml's telemetry section and the
// standard OTEL_* environment variables, resolved per setting, the
// environment first (as the OpenTelemetry SDKs' own configuration works):
//
//	exporter   OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER (otlp, console, none; a
//	           comma list), else traces_exporter / metrics_exporter, else otlp when
//	           an OTLP endpoint is set (below), else none. So nothing is exported
//	           unless one of them asks; OTEL_SDK_DISABLED=true turns all of it off.
//	protocol   OTEL_EXPORTER_OTLP_{TRACES,METRICS}_PROTOCOL, OTEL_EXPORTER_OTLP_PROTOCOL,
//	           protocol, else http/protobuf (grpc or http/protobuf; "http" is short
//	           for http/protobuf; http/json is not supported by the Go exporters)
//	endpoint   OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT (used as is), else
//	           OTEL_EXPORTER_OTLP_ENDPOINT or endpoint (a base: over http/protobuf
//	           /v1/traces or /v1/metrics is appended), else localhost:4317 (grpc)
//	           or localhost:4318 (http/protobuf); https:// means TLS
//	headers    endpoint headers from the section, then OTEL_EXPORTER_OTLP_HEADERS,
//	           then OTEL_EXPORTER_OTLP_{TRACES,METRICS}_HEADERS, key by key, the
//	           later winning ("k1=v1,k2=v2", values URL-decoded)
//	service    OTEL_SERVICE_NAME, else service.name in OTEL_RESOURCE_ATTRIBUTES,
//	           else service_name (default "toolfold")
//	content    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT (true/false),
//	           else capture_content (default false)
//
// The SDK's own variables keep working: OTEL_RESOURCE_ATTRIBUTES,
// OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_METRIC_EXPORT_INTERVAL, and the
// exporters' OTEL_EXPORTER_OTLP_{TIMEOUT,COMPRESSION,CERTIFICATE,…}.
//
// console exporters write JSON lines to stderr: stdout is the stdio
// transport. Spans are batched and exported in the background; on exit
// the providers are shut down, which flushes them, within shutdownTimeout.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/toolfold/toolfold/config"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// shutdownTimeout bounds the flush of telemetry on exit: an unreachable
// collector must not keep toolfold from ending.
const shutdownTimeout = 5 * time.Second

// telemetrySettings is where telemetry goes, resolved from the config's
// telemetry section and the environment.
type telemetrySettings struct {
	Service        string // service.name
	Traces         signalSettings
	Metrics        signalSettings
	CaptureContent bool
	Disabled       bool   // OTEL_SDK_DISABLED=true
	Prometheus     string // HOST:PORT serving /metrics for Prometheus to scrape; "" none
}

// signalSettings is where one signal (traces or metrics) goes.
type signalSettings struct {
	Exporters []string // config.ExporterOTLP and/or config.ExporterConsole; empty: off
	// For otlp only:
	Protocol string            // config.ProtocolGRPC or config.ProtocolHTTPProtobuf
	Endpoint string            // the URL exported to (http/protobuf: with its /v1/… path)
	Headers  map[string]string // sent with every export; may be nil
}

func (s signalSettings) on() bool { return len(s.Exporters) > 0 }

func (s signalSettings) otlp() bool { return slices.Contains(s.Exporters, config.ExporterOTLP) }

func (t telemetrySettings) off() bool {
	return !t.Traces.on() && !t.Metrics.on() && t.Prometheus == ""
}

// resolveTelemetry combines the config's telemetry section with the
// environment (getenv), the environment winning setting by setting. An
// empty variable counts as unset. Every bad variable is reported at once;
// messages never quote header values or endpoints, which may hold secrets.
func resolveTelemetry(tel config.Telemetry, getenv func(string) string) (telemetrySettings, error) {
	env := func(name string) string { return strings.TrimSpace(getenv(name)) }
	var errs []error
	s := telemetrySettings{Service: tel.ServiceName, CaptureContent: tel.CaptureContent, Prometheus: tel.Prometheus}
	if s.Service == "" {
		s.Service = config.DefaultServiceName
	}
	if v := resourceServiceName(env("OTEL_RESOURCE_ATTRIBUTES")); v != "" {
		s.Service = v
	}
	if v := env("OTEL_SERVICE_NAME"); v != "" {
		s.Service = v
	}
	if v := env("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=%s: must be true or false", v))
		}
		s.CaptureContent = b
	}
	if v := env("OTEL_SDK_DISABLED"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OTEL_SDK_DISABLED=%s: must be true or false", v))
		}
		if b {
			s.Disabled = true
			return s, errors.Join(errs...)
		}
	}
	var err error
	s.Traces, err = resolveSignal(tel, tel.TracesExporter, "TRACES", "/v1/traces", env)
	errs = append(errs, err)
	s.Metrics, err = resolveSignal(tel, tel.MetricsExporter, "METRICS", "/v1/metrics", env)
	errs = append(errs, err)
	return s, errors.Join(errs...)
}

// resolveSignal resolves one signal; sig is TRACES or METRICS, path the
// OTLP/HTTP path of its export requests.
func resolveSignal(tel config.Telemetry, exporter, sig, path string, env func(string) string) (signalSettings, error) {
	var s signalSettings
	var errs []error
	sigEndpoint, baseEndpoint := env("OTEL_EXPORTER_OTLP_"+sig+"_ENDPOINT"), env("OTEL_EXPORTER_OTLP_ENDPOINT")
	for _, name := range []string{"OTEL_EXPORTER_OTLP_" + sig + "_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"} {
		if v := env(name); v != "" {
			if msg := config.EndpointProblem(v); msg != "" {
				errs = append(errs, fmt.Errorf("%s: %s", name, msg))
			}
		}
	}
	hasEndpoint := sigEndpoint != "" || baseEndpoint != "" || tel.Endpoint != ""

	// Which exporters.
	name := "OTEL_" + sig + "_EXPORTER"
	switch v := strings.ToLower(env(name)); {
	case v != "":
		for _, e := range strings.Split(v, ",") {
			switch e = strings.TrimSpace(e); e {
			case config.ExporterOTLP, config.ExporterConsole:
				if !slices.Contains(s.Exporters, e) {
					s.Exporters = append(s.Exporters, e)
				}
			case config.ExporterNone:
				if v != config.ExporterNone {
					errs = append(errs, fmt.Errorf("%s=%s: none cannot be combined with other exporters", name, v))
				}
			default:
				errs = append(errs, fmt.Errorf("%s=%s: toolfold exports otlp or console, or none", name, v))
			}
		}
	case exporter == config.ExporterNone:
	case exporter != "":
		s.Exporters = []string{exporter}
	case hasEndpoint:
		s.Exporters = []string{config.ExporterOTLP}
	}
	if !s.otlp() {
		return s, errors.Join(errs...)
	}

	// How to reach the OTLP endpoint.
	s.Protocol = tel.Protocol
	for _, name := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_" + sig + "_PROTOCOL"} {
		switch v := strings.ToLower(env(name)); v {
		case "":
		case config.ProtocolGRPC, config.ProtocolHTTPProtobuf:
			s.Protocol = v
		case "http":
			s.Protocol = config.ProtocolHTTPProtobuf
		case "http/json":
			errs = append(errs, fmt.Errorf("%s=%s: not supported; use http/protobuf or grpc", name, v))
		default:
			errs = append(errs, fmt.Errorf("%s=%s: must be grpc or http/protobuf", name, v))
		}
	}
	if s.Protocol == "" {
		s.Protocol = config.ProtocolHTTPProtobuf // the OTLP exporter specification's default
	}
	base := "http://localhost:4318"
	if s.Protocol == config.ProtocolGRPC {
		base = "http://localhost:4317"
	}
	switch {
	case sigEndpoint != "":
		s.Endpoint = sigEndpoint
	case baseEndpoint != "":
		base = baseEndpoint
	case tel.Endpoint != "":
		base = tel.Endpoint
	}
	if s.Endpoint == "" {
		s.Endpoint = base
		if s.Protocol == config.ProtocolHTTPProtobuf {
			s.Endpoint = strings.TrimSuffix(base, "/") + path
		}
	}

	// Headers: the section's, then the environment's, key by key.
	s.Headers = map[string]string{}
	for k, v := range tel.Headers {
		s.Headers[k] = v
	}
	for _, name := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_" + sig + "_HEADERS"} {
		h, err := parseHeaders(name, env(name))
		errs = append(errs, err)
		for k, v := range h {
			s.Headers[k] = v
		}
	}
	if len(s.Headers) == 0 {
		s.Headers = nil
	}
	return s, errors.Join(errs...)
}

// parseHeaders reads the OTLP exporter's header list, "k1=v1,k2=v2" with
// URL-encoded values. Errors quote names, never values.
func parseHeaders(name, v string) (map[string]string, error) {
	if v == "" {
		return nil, nil
	}
	h := map[string]string{}
	var errs []error
	for i, pair := range strings.Split(v, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || !config.ValidHeaderName(k) {
			errs = append(errs, fmt.Errorf("%s: entry %d is not name=value with a valid header name", name, i+1))
			continue
		}
		dec, err := url.PathUnescape(val)
		if err != nil || strings.ContainsAny(dec, "\r\n\x00") {
			errs = append(errs, fmt.Errorf("%s: the value of %s is not a valid URL-encoded header value", name, k))
			continue
		}
		h[k] = strings.TrimSpace(dec)
	}
	return h, errors.Join(errs...)
}

// resourceServiceName is service.name in an OTEL_RESOURCE_ATTRIBUTES
// value, or "".
func resourceServiceName(attrs string) string {
	for _, kv := range strings.Split(attrs, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok && strings.TrimSpace(k) == "service.name" {
			if dec, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				return dec
			}
		}
	}
	return ""
}

// String is the one line `toolfold check` prints and `serve` logs:
// "traces → otlp grpc http://127.0.0.1:4317; metrics → none", or "off".
func (t telemetrySettings) String() string {
	switch {
	case t.Disabled:
		return "off (OTEL_SDK_DISABLED=true)"
	case t.off():
		return "off"
	}
	metrics := t.Metrics.String()
	if t.Prometheus != "" {
		metrics = strings.TrimPrefix(metrics+" and ", "none and ") + "prometheus http://" + t.Prometheus + "/metrics"
	}
	line := "traces → " + t.Traces.String() + "; metrics → " + metrics
	if t.Service != config.DefaultServiceName {
		line += "; service.name " + strconv.Quote(t.Service)
	}
	if t.CaptureContent {
		line += "; content captured"
	}
	return line
}

func (s signalSettings) String() string {
	if !s.on() {
		return "none"
	}
	var parts []string
	for _, e := range s.Exporters {
		switch e {
		case config.ExporterOTLP:
			p := "otlp " + s.Protocol + " " + redact(s.Endpoint)
			if len(s.Headers) > 0 {
				p += " with headers " + strings.Join(slices.Sorted(maps.Keys(s.Headers)), ", ")
			}
			parts = append(parts, p)
		case config.ExporterConsole:
			parts = append(parts, "console (stderr)")
		}
	}
	return strings.Join(parts, " and ")
}

// redact hides a password in a URL.
func redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Redacted()
}

// telemetry is the installed SDK. Its providers are nil when their signal
// is off, which is how proxy.Options says "no cost".
type telemetry struct {
	tracer trace.TracerProvider
	meter  metric.MeterProvider
	stop   []func(context.Context) error
}

// startTelemetry builds the providers and exporters s asks for; with
// nothing on it returns an empty *telemetry and touches nothing global.
// Export errors are logged to log as warnings.
func startTelemetry(ctx context.Context, s telemetrySettings, version string, stderr io.Writer, log *slog.Logger) (*telemetry, error) {
	t := &telemetry{}
	if s.Disabled || s.off() {
		return t, nil
	}
	// The console exporters of both signals share one writer, whose lock
	// keeps their JSON lines whole.
	stderr = &lockedWriter{w: stderr}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("telemetry: " + err.Error())
	}))
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(
			attribute.String("service.name", s.Service),
			attribute.String("service.version", version),
		),
		resource.WithFromEnv(), // OTEL_RESOURCE_ATTRIBUTES; OTEL_SERVICE_NAME
	)
	if err != nil {
		log.Warn("telemetry: resource: " + err.Error()) // res is still usable, as partial
	}
	if s.Traces.on() {
		opts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
		for _, e := range s.Traces.Exporters {
			exp, err := traceExporter(ctx, e, s.Traces, stderr)
			if err != nil {
				t.shutdown()
				return nil, fmt.Errorf("telemetry: traces exporter %s: %w", e, err)
			}
			opts = append(opts, sdktrace.WithBatcher(exp))
		}
		tp := sdktrace.NewTracerProvider(opts...)
		t.tracer = tp
		t.stop = append(t.stop, tp.Shutdown)
	}
	if s.Metrics.on() || s.Prometheus != "" {
		opts := []sdkmetric.Option{sdkmetric.WithResource(res)}
		if s.Prometheus != "" {
			reader, stop, err := servePrometheus(s.Prometheus, log)
			if err != nil {
				t.shutdown()
				return nil, fmt.Errorf("telemetry: prometheus: %w", err)
			}
			opts = append(opts, sdkmetric.WithReader(reader))
			t.stop = append(t.stop, stop)
		}
		for _, e := range s.Metrics.Exporters {
			exp, err := metricExporter(ctx, e, s.Metrics, stderr)
			if err != nil {
				t.shutdown()
				return nil, fmt.Errorf("telemetry: metrics exporter %s: %w", e, err)
			}
			opts = append(opts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)))
		}
		mp := sdkmetric.NewMeterProvider(opts...)
		t.meter = mp
		t.stop = append(t.stop, mp.Shutdown)
	}
	return t, nil
}

func traceExporter(ctx context.Context, kind string, s signalSettings, stderr io.Writer) (sdktrace.SpanExporter, error) {
	switch {
	case kind == config.ExporterConsole:
		return stdouttrace.New(stdouttrace.WithWriter(stderr))
	case s.Protocol == config.ProtocolGRPC:
		return otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(s.Endpoint), otlptracegrpc.WithHeaders(s.Headers))
	default:
		return otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(s.Endpoint), otlptracehttp.WithHeaders(s.Headers))
	}
}

func metricExporter(ctx context.Context, kind string, s signalSettings, stderr io.Writer) (sdkmetric.Exporter, error) {
	switch {
	case kind == config.ExporterConsole:
		return stdoutmetric.New(stdoutmetric.WithWriter(stderr))
	case s.Protocol == config.ProtocolGRPC:
		return otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(s.Endpoint), otlpmetricgrpc.WithHeaders(s.Headers))
	default:
		return otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(s.Endpoint), otlpmetrichttp.WithHeaders(s.Headers))
	}
}

// servePrometheus serves the metrics at http://addr/metrics through the
// OpenTelemetry Prometheus exporter, on a registry of its own (so nothing
// but toolfold's metrics is exposed), until stop is called.
func servePrometheus(addr string, log *slog.Logger) (sdkmetric.Reader, func(context.Context) error, error) {
	reg := prometheus.NewRegistry()
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listen %s: %w (telemetry.prometheus)", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("telemetry: prometheus endpoint stopped", "err", err)
		}
	}()
	log.Info("telemetry: prometheus metrics at http://" + ln.Addr().String() + "/metrics")
	return exp, srv.Shutdown, nil
}

// shutdown flushes and stops the providers, all at once, within
// shutdownTimeout. It is safe on a nil or empty *telemetry.
func (t *telemetry) shutdown() error {
	if t == nil || len(t.stop) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	errs := make([]error, len(t.stop))
	var wg sync.WaitGroup
	for i, stop := range t.stop {
		wg.Go(func() { errs[i] = stop(ctx) })
	}
	wg.Wait()
	t.stop = nil
	return errors.Join(errs...)
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
