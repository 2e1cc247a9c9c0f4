package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolfold/toolfold/config"
)

func TestResolveTelemetry(t *testing.T) {
	base := config.Telemetry{ServiceName: "toolfold"}
	section := config.Telemetry{ServiceName: "from-file", TracesExporter: "otlp", MetricsExporter: "none",
		Endpoint: "http://collector:4317", Protocol: "grpc", Headers: map[string]string{"x-key": "file", "x-file": "1"}}
	otlpGRPC := func(endpoint string) signalSettings {
		return signalSettings{Exporters: []string{"otlp"}, Protocol: "grpc", Endpoint: endpoint}
	}
	otlpHTTP := func(endpoint string) signalSettings {
		return signalSettings{Exporters: []string{"otlp"}, Protocol: "http/protobuf", Endpoint: endpoint}
	}
	for _, tc := range []struct {
		name string
		tel  config.Telemetry
		env  map[string]string
		want telemetrySettings
		line string // String()
	}{{
		name: "nothing configured",
		tel:  base,
		want: telemetrySettings{Service: "toolfold"},
		line: "off",
	}, {
		name: "the section alone",
		tel:  section,
		want: telemetrySettings{Service: "from-file",
			Traces: signalSettings{Exporters: []string{"otlp"}, Protocol: "grpc", Endpoint: "http://collector:4317",
				Headers: map[string]string{"x-key": "file", "x-file": "1"}}},
		line: `traces → otlp grpc http://collector:4317 with headers x-file, x-key; metrics → none; service.name "from-file"`,
	}, {
		name: "an endpoint in the section implies otlp for both",
		tel:  config.Telemetry{ServiceName: "toolfold", Endpoint: "https://otlp.example.com/base/"},
		want: telemetrySettings{Service: "toolfold",
			Traces:  otlpHTTP("https://otlp.example.com/base/v1/traces"),
			Metrics: otlpHTTP("https://otlp.example.com/base/v1/metrics")},
		line: "traces → otlp http/protobuf https://otlp.example.com/base/v1/traces; metrics → otlp http/protobuf https://otlp.example.com/base/v1/metrics",
	}, {
		name: "an endpoint in the environment implies otlp, unless an exporter says none",
		tel:  config.Telemetry{ServiceName: "toolfold", MetricsExporter: "none"},
		env:  map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		want: telemetrySettings{Service: "toolfold", Traces: otlpGRPC("http://127.0.0.1:4317")},
		line: "traces → otlp grpc http://127.0.0.1:4317; metrics → none",
	}, {
		name: "the environment wins setting by setting",
		tel:  section,
		env: map[string]string{
			"OTEL_SERVICE_NAME":                                  "from-env",
			"OTEL_METRICS_EXPORTER":                              "console",
			"OTEL_EXPORTER_OTLP_PROTOCOL":                        "http/protobuf",
			"OTEL_EXPORTER_OTLP_ENDPOINT":                        "http://env:4318",
			"OTEL_EXPORTER_OTLP_HEADERS":                         "x-key=env%20value, x-env=2",
			"OTEL_EXPORTER_OTLP_TRACES_HEADERS":                  "x-env=3",
			"OTEL_RESOURCE_ATTRIBUTES":                           "service.name=loses,deployment.environment=dev",
			"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
		},
		want: telemetrySettings{Service: "from-env", CaptureContent: true,
			Traces: signalSettings{Exporters: []string{"otlp"}, Protocol: "http/protobuf", Endpoint: "http://env:4318/v1/traces",
				Headers: map[string]string{"x-key": "env value", "x-file": "1", "x-env": "3"}},
			Metrics: signalSettings{Exporters: []string{"console"}}},
		line: `traces → otlp http/protobuf http://env:4318/v1/traces with headers x-env, x-file, x-key; metrics → console (stderr); service.name "from-env"; content captured`,
	}, {
		name: "per-signal endpoint and protocol, used as they are",
		tel:  base,
		env: map[string]string{
			"OTEL_TRACES_EXPORTER":                "otlp, console",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":  "http://traces:9999/custom",
			"OTEL_EXPORTER_OTLP_ENDPOINT":         "http://all:4318",
			"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "grpc",
			"OTEL_RESOURCE_ATTRIBUTES":            "service.name=my%20proxy",
		},
		want: telemetrySettings{Service: "my proxy",
			Traces:  signalSettings{Exporters: []string{"otlp", "console"}, Protocol: "http/protobuf", Endpoint: "http://traces:9999/custom"},
			Metrics: otlpGRPC("http://all:4318")},
		line: `traces → otlp http/protobuf http://traces:9999/custom and console (stderr); metrics → otlp grpc http://all:4318; service.name "my proxy"`,
	}, {
		name: "exporter without endpoint: the protocol's default",
		tel:  config.Telemetry{ServiceName: "toolfold", TracesExporter: "otlp", MetricsExporter: "otlp", Protocol: "grpc"},
		env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http"},
		want: telemetrySettings{Service: "toolfold",
			Traces:  otlpHTTP("http://localhost:4318/v1/traces"),
			Metrics: otlpGRPC("http://localhost:4317")},
		line: "traces → otlp http/protobuf http://localhost:4318/v1/traces; metrics → otlp grpc http://localhost:4317",
	}, {
		name: "none in the environment beats the section",
		tel:  section,
		env:  map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": ""},
		want: telemetrySettings{Service: "from-file"},
		line: "off",
	}, {
		name: "OTEL_SDK_DISABLED turns everything off",
		tel:  section,
		env:  map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"},
		want: telemetrySettings{Service: "from-file", Disabled: true},
		line: "off (OTEL_SDK_DISABLED=true)",
	}, {
		name: "a password in the endpoint is not shown",
		tel:  config.Telemetry{ServiceName: "toolfold", TracesExporter: "otlp", MetricsExporter: "none", Endpoint: "https://u:hunter2@h"},
		want: telemetrySettings{Service: "toolfold", Traces: otlpHTTP("https://u:hunter2@h/v1/traces")},
		line: "traces → otlp http/protobuf https://u:xxxxx@h/v1/traces; metrics → none",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveTelemetry(tc.tel, func(k string) string { return tc.env[k] })
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
			if s := got.String(); s != tc.line {
				t.Errorf("String() = %q\nwant       %q", s, tc.line)
			}
		})
	}
}

func TestResolveTelemetryErrors(t *testing.T) {
	env := map[string]string{
		"OTEL_TRACES_EXPORTER":                               "zipkin",
		"OTEL_METRICS_EXPORTER":                              "none,otlp",
		"OTEL_EXPORTER_OTLP_ENDPOINT":                        "localhost:4317",
		"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL":                "http/json",
		"OTEL_EXPORTER_OTLP_HEADERS":                         "ok=1,api-key,bad name=x,x=%zzsecret",
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "sometimes",
	}
	_, err := resolveTelemetry(config.Telemetry{ServiceName: "toolfold"}, func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=sometimes: must be true or false",
		"OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL, like http://127.0.0.1:4317 (grpc) or http://127.0.0.1:4318 (http/protobuf)",
		"OTEL_TRACES_EXPORTER=zipkin: toolfold exports otlp or console, or none",
		"OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL, like http://127.0.0.1:4317 (grpc) or http://127.0.0.1:4318 (http/protobuf)",
		"OTEL_METRICS_EXPORTER=none,otlp: none cannot be combined with other exporters",
		"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL=http/json: not supported; use http/protobuf or grpc",
		"OTEL_EXPORTER_OTLP_HEADERS: entry 2 is not name=value with a valid header name",
		"OTEL_EXPORTER_OTLP_HEADERS: entry 3 is not name=value with a valid header name",
		"OTEL_EXPORTER_OTLP_HEADERS: the value of x is not a valid URL-encoded header value",
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Error("an error quotes a header value")
	}
}

func TestStartTelemetryOff(t *testing.T) {
	tel, err := startTelemetry(context.Background(), telemetrySettings{Service: "toolfold"}, "dev", &bytes.Buffer{}, slog.New(slog.DiscardHandler))
	if err != nil || tel.tracer != nil || tel.meter != nil {
		t.Fatalf("off: %+v, %v; want nil providers (no cost)", tel, err)
	}
	if err := tel.shutdown(); err != nil {
		t.Error(err)
	}
}

// TestConsoleExporterFlushesToStderr: console exporters write to the
// writer given for stderr, and shutdown flushes what was batched.
func TestConsoleExporterFlushesToStderr(t *testing.T) {
	var stderr bytes.Buffer
	s := telemetrySettings{Service: "tf-test",
		Traces: signalSettings{Exporters: []string{"console"}}, Metrics: signalSettings{Exporters: []string{"console"}}}
	tel, err := startTelemetry(context.Background(), s, "v9", &stderr, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	_, span := tel.tracer.Tracer("test").Start(context.Background(), "tools/call run_script")
	span.End()
	c, _ := tel.meter.Meter("test").Int64Counter("test.count")
	c.Add(context.Background(), 1)
	if err := tel.shutdown(); err != nil {
		t.Fatal(err)
	}
	out := stderr.String()
	for _, want := range []string{`"Name":"tools/call run_script"`, `"Name":"test.count"`, `"Value":"tf-test"`, `"Value":"v9"`} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %s:\n%s", want, out)
		}
	}
}
