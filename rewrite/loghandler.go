package rewrite

import (
	"context"
	"fmt"
	"log/slog"
)

// LogHandler wraps h so that every record it handles has the values d
// finds in its message and attributes replaced by their types ([EMAIL]):
// a log is no session's, and quotes what scripts typed and upstreams
// said (a script's error, a child's stderr). Attributes other than text
// (numbers, durations, times) pass as they are; any other value is
// redacted as it would print. A nil detector returns h.
func (d *Detector) LogHandler(h slog.Handler) slog.Handler {
	if d == nil {
		return h
	}
	return &redactHandler{d: d, h: h}
}

type redactHandler struct {
	d *Detector
	h slog.Handler
}

func (r *redactHandler) Enabled(ctx context.Context, l slog.Level) bool { return r.h.Enabled(ctx, l) }

func (r *redactHandler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, r.d.Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(r.attr(a))
		return true
	})
	return r.h.Handle(ctx, out)
}

func (r *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = r.attr(a)
	}
	return &redactHandler{d: r.d, h: r.h.WithAttrs(red)}
}

func (r *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{d: r.d, h: r.h.WithGroup(name)}
}

// attr is a with its text redacted.
func (r *redactHandler) attr(a slog.Attr) slog.Attr {
	a.Value = a.Value.Resolve()
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); s != "" {
			if t := r.d.Redact(s); t != s {
				a.Value = slog.StringValue(t)
			}
		}
	case slog.KindAny:
		if x := a.Value.Any(); x != nil {
			s := fmt.Sprint(x)
			if t := r.d.Redact(s); t != s {
				a.Value = slog.StringValue(t)
			}
		}
	case slog.KindGroup:
		g := a.Value.Group()
		red := make([]slog.Attr, len(g))
		for i, e := range g {
			red[i] = r.attr(e)
		}
		a.Value = slog.GroupValue(red...)
	}
	return a
}
