package upstream

import (
	"strings"
	"testing"
)

// TestUnavailableMessage: the model is told to retry only where waiting helps.
func TestUnavailableMessage(t *testing.T) {
	tests := []struct{ reason, want string }{
		{"connect: start /nonexistent/x: fork/exec /nonexistent/x: no such file or directory (check command and PATH)", "retrying will not help"},
		{`connect: start nope: exec: "nope": executable file not found in $PATH`, "retrying will not help"},
		{"connect: start x: fork/exec x: resource temporarily unavailable", "retry shortly"},
		{"disconnected during the call", "retry shortly"},
		{"sign in first: toolfold login hosted", "tell the user, then retry"},
	}
	for _, tt := range tests {
		got := (&UnavailableError{Server: "s", Reason: tt.reason}).Error()
		if !strings.Contains(got, tt.want) {
			t.Errorf("reason %q: %q lacks %q", tt.reason, got, tt.want)
		}
	}
}
