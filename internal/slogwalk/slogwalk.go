// Package slogwalk wraps a slog.Handler so that every record passes
// through functions on its way: its message, and each of its attributes,
// inside groups too, and those a logger was built With. The log
// redactions (session ids in package proxy, personal data in package
// rewrite) are such functions; they differ in what they replace, not in
// how a record is walked.
package slogwalk

import (
	"context"
	"log/slog"
)

// Funcs are what a Handler applies. A nil field leaves its part as it is.
type Funcs struct {
	// Message returns the record's message to pass on.
	Message func(string) string
	// Attr returns the attribute to pass on in place of a, which is
	// resolved (LogValuer values already called) and never a group: a
	// group's attributes are walked one by one.
	Attr func(a slog.Attr) slog.Attr
}

// Handler passes each record on to the next handler with Funcs applied.
type Handler struct {
	next  slog.Handler
	funcs Funcs
	name  string
}

// New wraps next. name tells wrappers apart (Wraps), so that a logger is
// not wrapped twice by the same one.
func New(next slog.Handler, name string, f Funcs) *Handler {
	return &Handler{next: next, funcs: f, name: name}
}

// Wraps reports whether h is a Handler made by New with name.
func Wraps(h slog.Handler, name string) bool {
	w, ok := h.(*Handler)
	return ok && w.name == name
}

// Enabled is the next handler's.
func (h *Handler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

// Handle passes r on with its message and attributes changed.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	msg := r.Message
	if h.funcs.Message != nil {
		msg = h.funcs.Message(msg)
	}
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

// WithAttrs changes as once, here, rather than on every record.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = h.attr(a)
	}
	return &Handler{next: h.next.WithAttrs(out), funcs: h.funcs, name: h.name}
}

// WithGroup is the next handler's group, still wrapped.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), funcs: h.funcs, name: h.name}
}

// attr resolves a and walks it: a group's attributes one by one, any
// other through Funcs.Attr.
func (h *Handler) attr(a slog.Attr) slog.Attr {
	a.Value = a.Value.Resolve()
	if a.Value.Kind() == slog.KindGroup {
		g := a.Value.Group()
		out := make([]slog.Attr, len(g))
		for i, ga := range g {
			out[i] = h.attr(ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	}
	if h.funcs.Attr != nil {
		return h.funcs.Attr(a)
	}
	return a
}
