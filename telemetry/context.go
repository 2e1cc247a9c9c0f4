package telemetry

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Trace context across the hops (SEP-414): continued from a client's
// params._meta, and replaced by ours in every upstream request's.

// extract returns ctx carrying the client's trace context: from
// params._meta (SEP-414), else from the HTTP request's headers.
func (t *Telemetry) extract(ctx context.Context, req mcp.Request, params mcp.Params) context.Context {
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
func setTraceMeta(ctx context.Context, params mcp.Params, t *Telemetry) {
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
