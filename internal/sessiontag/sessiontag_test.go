package sessiontag

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// TestRedact: every spelling of a session id key is redacted,
// in groups and With attributes too, to the same tag; other values stay.
func TestRedact(t *testing.T) {
	var buf bytes.Buffer
	log := Redact(slog.New(slog.NewTextHandler(&buf, nil)))
	const id = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	log.Info("one", "session_id", id, "sessionID", id, "Mcp-Session-Id", id, "session", id, "other", "kept")
	log.With("sid", id).WithGroup("g").Info("two", slog.Group("inner", "session_id", id))
	log.Info("three", "session", Of(id))
	out := buf.String()
	if strings.Contains(out, id) {
		t.Fatalf("a session id in the log:\n%s", out)
	}
	tag := Of(id)
	if n := strings.Count(out, tag); n != 7 {
		t.Errorf("tag %s appears %d times, want 7 (each redacted value, an existing tag kept):\n%s", tag, n, out)
	}
	if !strings.Contains(out, "other=kept") {
		t.Errorf("an unrelated attribute was changed:\n%s", out)
	}
	if Of(id) == Of(id+"x") || Of("") != "" {
		t.Error("SessionTag: different ids must get different tags, and the stdio session none")
	}
}
