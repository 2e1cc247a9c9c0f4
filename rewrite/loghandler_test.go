package rewrite

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestLogHandlerRedacts: a log line's message, its attributes (text,
// errors, groups, those added with With) hold types, never the values.
func TestLogHandlerRedacts(t *testing.T) {
	d, err := NewDetector(Defaults())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	log := slog.New(d.LogHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	log = log.With("who", "erin.desc@example.com")
	log.Debug("run finished for erin.desc@example.com", "error", errors.New("script:3: no answer from +44 20 7946 0958"),
		"took", 3*time.Millisecond, "calls", 2, slog.Group("child", "stderr", "card 4111 1111 1111 1111"))
	got := buf.String()
	for _, raw := range []string{"erin.desc@example.com", "7946 0958", "4111 1111"} {
		if strings.Contains(got, raw) {
			t.Errorf("the log shows %q:\n%s", raw, got)
		}
	}
	for _, want := range []string{"run finished for [EMAIL]", `who=[EMAIL]`, `error="script:3: no answer from [PHONE]"`, "took=3ms", "calls=2", "child.stderr=\"card [CREDIT_CARD]\""} {
		if !strings.Contains(got, want) {
			t.Errorf("the log lacks %q:\n%s", want, got)
		}
	}
}
