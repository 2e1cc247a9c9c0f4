package rewrite

import (
	"fmt"
	"log/slog"

	"github.com/toolfold/toolfold/internal/slogwalk"
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
	return slogwalk.New(h, "rewrite", slogwalk.Funcs{Message: d.Redact, Attr: d.redactAttr})
}

// redactAttr is a with its text redacted.
func (d *Detector) redactAttr(a slog.Attr) slog.Attr {
	switch a.Value.Kind() {
	case slog.KindString:
		if s := a.Value.String(); s != "" {
			if t := d.Redact(s); t != s {
				a.Value = slog.StringValue(t)
			}
		}
	case slog.KindAny:
		if x := a.Value.Any(); x != nil {
			s := fmt.Sprint(x)
			if t := d.Redact(s); t != s {
				a.Value = slog.StringValue(t)
			}
		}
	}
	return a
}
