package config

import (
	"net/url"
	"strings"

	"gopkg.in/yaml.v3"
)

// Telemetry is the "telemetry:" section: where OpenTelemetry traces and
// metrics go. It is what the file says; the standard OTEL_* environment
// variables override it, and cmd/toolfold resolves the two (config does
// not read the environment beyond ${VAR} references). The zero value, and
// a file without the section, export nothing.
type Telemetry struct {
	ServiceName string // service.name of the resource; default "toolfold"
	// TracesExporter and MetricsExporter are "otlp", "console" (to stderr)
	// or "none", or "" when the file does not say: then an OTLP endpoint
	// (here or in the environment) means "otlp", and no endpoint "none".
	TracesExporter  string
	MetricsExporter string
	// Endpoint is the OTLP endpoint's base URL (http:// or https://),
	// like OTEL_EXPORTER_OTLP_ENDPOINT: over http/protobuf, /v1/traces and
	// /v1/metrics are appended. "" when the file does not say.
	Endpoint string
	Protocol string            // "grpc", "http/protobuf", or "" when the file does not say
	Headers  map[string]string // sent with every export; values ${VAR}-expanded; may be nil
	// CaptureContent records tool arguments and results, script code and
	// search queries on spans. Off by default: they may hold personal data.
	CaptureContent bool
	// Prometheus, when set, serves the metrics in Prometheus's text format
	// at http://Prometheus/metrics (HOST:PORT), on a listener of its own,
	// whatever MetricsExporter says. It has no bearer token: bind it where
	// only the scraper reaches. "" serves none.
	Prometheus string
}

// DefaultServiceName is Telemetry.ServiceName unless the file sets one.
const DefaultServiceName = "toolfold"

// Values of the telemetry section.
const (
	ExporterOTLP    = "otlp"
	ExporterConsole = "console"
	ExporterNone    = "none"

	ProtocolGRPC         = "grpc"
	ProtocolHTTPProtobuf = "http/protobuf"
)

var telemetryKeys = []string{"service_name", "traces_exporter", "metrics_exporter", "endpoint",
	"protocol", "headers", "capture_content", "prometheus"}

// telemetry decodes the "telemetry:" section.
func (d *decoder) telemetry(n *yaml.Node, tel *Telemetry, x *expander) {
	if isNull(n) {
		return
	}
	fs, _ := d.mapping(n, "telemetry", "a map (traces_exporter, endpoint, …)")
	for _, f := range fs {
		p := join("telemetry", f.name)
		if isNull(f.val) {
			continue
		}
		switch f.name {
		case "service_name":
			if s, ok := d.str(f.val, p); ok {
				if s = strings.TrimSpace(s); s == "" {
					d.errorf(f.val, p, "must not be empty")
				} else {
					tel.ServiceName = s
				}
			}
		case "traces_exporter":
			tel.TracesExporter = d.exporter(f.val, p)
		case "metrics_exporter":
			tel.MetricsExporter = d.exporter(f.val, p)
		case "endpoint":
			tel.Endpoint = d.endpoint(f.val, p, x)
		case "protocol":
			tel.Protocol = d.protocol(f.val, p)
		case "headers":
			tel.Headers = d.telemetryHeaders(f.val, p, x)
		case "capture_content":
			tel.CaptureContent, _ = d.boolean(f.val, p)
		case "prometheus":
			if s, ok := d.str(f.val, p); ok && s != "" {
				if msg := addrProblem(s); msg != "" {
					d.errorf(f.val, p, "%s", msg)
				}
				tel.Prometheus = s
			}
		default:
			d.errorf(f.key, p, "%s", unknownKey(f.name, telemetryKeys))
		}
	}
}

// exporter reads traces_exporter or metrics_exporter.
func (d *decoder) exporter(n *yaml.Node, p string) string {
	s, ok := d.str(n, p)
	if !ok {
		return ""
	}
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case ExporterOTLP, ExporterConsole, ExporterNone:
		return v
	case "stdout", "logging":
		d.errorf(n, p, `%q: write "console" (it writes to stderr: stdout is the stdio transport)`, s)
	case "otlp_grpc", "otlp-grpc", "grpc", "otlp_http", "otlp-http", "http", "http/protobuf":
		d.errorf(n, p, `%q: write "otlp", and set protocol: grpc or http/protobuf`, s)
	default:
		d.errorf(n, p, `must be "otlp", "console" or "none", got %q`, s)
	}
	return ""
}

// protocol reads the OTLP protocol; "http" is short for http/protobuf.
func (d *decoder) protocol(n *yaml.Node, p string) string {
	s, ok := d.str(n, p)
	if !ok {
		return ""
	}
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case ProtocolGRPC:
		return v
	case ProtocolHTTPProtobuf, "http":
		return ProtocolHTTPProtobuf
	case "http/json":
		d.errorf(n, p, `"http/json" is not supported: use "http/protobuf" or "grpc"`)
	default:
		d.errorf(n, p, `must be "grpc" or "http/protobuf", got %q`, s)
	}
	return ""
}

// endpoint reads an OTLP endpoint URL, expanding its ${VAR}s.
func (d *decoder) endpoint(n *yaml.Node, p string, x *expander) string {
	s, ok := d.str(n, p)
	if !ok {
		return ""
	}
	v, errs := x.expand(strings.TrimSpace(s))
	for _, msg := range errs {
		d.errorf(n, p, "%s", msg)
	}
	if len(errs) > 0 {
		return ""
	}
	if msg := EndpointProblem(v); msg != "" {
		d.errorf(n, p, "%s", msg) // the value may hold a secret: EndpointProblem does not quote it
		return ""
	}
	return v
}

// EndpointProblem says why s is not a usable OTLP endpoint URL, or "". The
// message never quotes s, which may hold credentials.
func EndpointProblem(s string) string {
	u, err := url.Parse(s)
	switch {
	case s == "":
		return "must not be empty"
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return "must be an http:// or https:// URL, like http://127.0.0.1:4317 (grpc) or http://127.0.0.1:4318 (http/protobuf)"
	case u.RawQuery != "" || u.Fragment != "":
		return "must not have a query or fragment"
	}
	return ""
}

// telemetryHeaders reads the headers sent with every export.
func (d *decoder) telemetryHeaders(n *yaml.Node, p string, x *expander) map[string]string {
	fs, _ := d.strMap(n, p)
	m := make(map[string]string, len(fs))
	for _, kv := range fs {
		kp := join(p, kv.name)
		if !ValidHeaderName(kv.name) {
			d.errorf(kv.key, kp, "invalid header name %q", kv.name)
		}
		v, errs := x.expand(kv.val.Value)
		for _, msg := range errs {
			d.errorf(kv.val, kp, "%s", msg)
		}
		if strings.ContainsAny(v, "\r\n\x00") {
			d.errorf(kv.val, kp, "a header value cannot contain line breaks or NUL")
		}
		m[kv.name] = v
	}
	if len(m) == 0 {
		return nil
	}
	return m
}
