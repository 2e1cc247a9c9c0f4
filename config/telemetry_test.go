package config

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTelemetry(t *testing.T) {
	vars := map[string]string{"HC_KEY": "s3cret", "OTLP_HOST": "collector:4317"}
	for _, tc := range []struct {
		name, src string
		want      Telemetry
	}{{
		name: "no section",
		src:  "",
		want: Telemetry{ServiceName: "toolfold"},
	}, {
		name: "empty section",
		src:  "telemetry:\n",
		want: Telemetry{ServiceName: "toolfold"},
	}, {
		name: "everything",
		src: `telemetry:
  service_name: " agents-proxy "
  traces_exporter: otlp
  metrics_exporter: CONSOLE
  endpoint: http://${OTLP_HOST}
  protocol: grpc
  headers: {x-honeycomb-team: "${HC_KEY}", X-Plain: "a b"}
  capture_content: true
`,
		want: Telemetry{ServiceName: "agents-proxy", TracesExporter: "otlp", MetricsExporter: "console",
			Endpoint: "http://collector:4317", Protocol: "grpc",
			Headers:        map[string]string{"x-honeycomb-team": "s3cret", "X-Plain": "a b"},
			CaptureContent: true},
	}, {
		name: "http is http/protobuf; none stays none",
		src:  "telemetry: {protocol: http, traces_exporter: none, endpoint: \"https://api.honeycomb.io\"}\n",
		want: Telemetry{ServiceName: "toolfold", TracesExporter: "none", Protocol: "http/protobuf",
			Endpoint: "https://api.honeycomb.io"},
	}, {
		name: "nulls are absent",
		src:  "telemetry: {service_name: ~, traces_exporter: null, headers: {}}\n",
		want: Telemetry{ServiceName: "toolfold"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustParse(t, "p.yaml", "upstreams: {a: {command: x}}\n"+tc.src, vars)
			if diff := cmp.Diff(tc.want, cfg.Telemetry); diff != "" {
				t.Errorf("Telemetry (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTelemetryErrors(t *testing.T) {
	vars := map[string]string{"SECRET": "hunter2"}
	src := `upstreams: {a: {command: x}}
telemetry:
  traces_exporter: jaeger
  metrics_exporter: stdout
  endpoint: "localhost:4317"
  protocol: http/json
  headers: {"bad header": x, Auth: "${NOPE}", X: "${SECRET}\n"}
  capture_content: yes please
  service_name: ""
  sevice_name: x
  url: http://h
tracing: {}
`
	want := []string{
		`test.yaml:3:20: telemetry.traces_exporter: must be "otlp", "console" or "none", got "jaeger"`,
		`test.yaml:4:21: telemetry.metrics_exporter: "stdout": write "console" (it writes to stderr: stdout is the stdio transport)`,
		`test.yaml:5:13: telemetry.endpoint: must be an http:// or https:// URL, like http://127.0.0.1:4317 (grpc) or http://127.0.0.1:4318 (http/protobuf)`,
		`test.yaml:6:13: telemetry.protocol: "http/json" is not supported: use "http/protobuf" or "grpc"`,
		`test.yaml:7:13: telemetry.headers["bad header"]: invalid header name "bad header"`,
		`test.yaml:7:36: telemetry.headers.Auth: environment variable NOPE is not set; set it or write ${NOPE:-default}`,
		`test.yaml:7:50: telemetry.headers.X: a header value cannot contain line breaks or NUL`,
		`test.yaml:8:20: telemetry.capture_content: must be true or false`,
		`test.yaml:9:17: telemetry.service_name: must not be empty`,
		`test.yaml:10:3: telemetry.sevice_name: unknown key "sevice_name"; did you mean "service_name"?`,
		`test.yaml:11:3: telemetry.url: unknown key "url"; did you mean "endpoint"?`,
		`test.yaml:12:1: tracing: unknown key "tracing"; did you mean "telemetry"?`,
	}
	_, err := Parse("test.yaml", []byte(src), env(vars))
	if err == nil {
		t.Fatal("Parse succeeded; want errors")
	}
	if diff := cmp.Diff(want, strings.Split(err.Error(), "\n")); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Error("an error shows the value of an environment variable")
	}
}

func TestTelemetryEndpointNotQuoted(t *testing.T) {
	_, err := Parse("p.yaml", []byte("upstreams: {a: {command: x}}\ntelemetry: {endpoint: \"ftp://user:${SECRET}@h\"}\n"),
		env(map[string]string{"SECRET": "hunter2"}))
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "telemetry.endpoint: must be an http") {
		t.Errorf("Parse: %v", err)
	}
}

// TestSampleTelemetrySection parses proxy.yaml's commented-out telemetry
// section with its comment marks removed, so the sample stays valid.
func TestSampleTelemetrySection(t *testing.T) {
	data, err := os.ReadFile("../proxy.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i := strings.Index(s, "\n# telemetry:\n")
	if i < 0 {
		t.Fatal(`proxy.yaml has no commented-out "# telemetry:" section`)
	}
	var b strings.Builder
	b.WriteString(s[:i+1])
	for _, line := range strings.Split(s[i+1:], "\n") {
		if strings.HasPrefix(line, "# telemetry:") || strings.HasPrefix(line, "#   ") {
			b.WriteString(line[2:] + "\n")
		}
	}
	cfg := mustParse(t, "proxy.yaml", b.String(), map[string]string{"HONEYCOMB_API_KEY": "k"})
	want := Telemetry{ServiceName: "toolfold", TracesExporter: "otlp", MetricsExporter: "none",
		Endpoint: "http://127.0.0.1:4317", Protocol: "grpc", Headers: map[string]string{"x-honeycomb-team": "k"}}
	if diff := cmp.Diff(want, cfg.Telemetry); diff != "" {
		t.Errorf("the sample's telemetry section (-want +got):\n%s", diff)
	}
}
