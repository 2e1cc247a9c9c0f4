package slogwalk

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// upper is a Funcs that upper-cases the message and every string value.
var upper = Funcs{
	Message: strings.ToUpper,
	Attr: func(a slog.Attr) slog.Attr {
		if a.Value.Kind() == slog.KindString {
			a.Value = slog.StringValue(strings.ToUpper(a.Value.String()))
		}
		return a
	},
}

type lazy string

func (l lazy) LogValue() slog.Value { return slog.StringValue(string(l)) }

func TestWalksEverything(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(New(slog.NewTextHandler(&buf, nil), "upper", upper))
	log.With("with", "w").WithGroup("g").Info("msg", "plain", "p", "n", 3,
		slog.Group("grp", "inner", "i"), "lazy", lazy("l"))
	got := buf.String()
	for _, want := range []string{"msg=MSG", "with=W", "g.plain=P", "g.n=3", "g.grp.inner=I", "g.lazy=L"} {
		if !strings.Contains(got, want) {
			t.Errorf("log line %q lacks %q", got, want)
		}
	}
}

func TestNilFuncsPassThrough(t *testing.T) {
	var buf bytes.Buffer
	slog.New(New(slog.NewTextHandler(&buf, nil), "none", Funcs{})).Info("msg", "k", "v")
	if got := buf.String(); !strings.Contains(got, "msg=msg k=v") {
		t.Errorf("log line %q, want it unchanged", got)
	}
}

func TestWraps(t *testing.T) {
	h := New(slog.DiscardHandler, "a", Funcs{})
	if !Wraps(h, "a") || Wraps(h, "b") || Wraps(slog.DiscardHandler, "a") {
		t.Error("Wraps does not tell the handlers apart")
	}
	if !Wraps(h.WithAttrs(nil), "a") || !Wraps(h.WithGroup("g"), "a") {
		t.Error("WithAttrs or WithGroup lost the name")
	}
}
