package proxy

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolfold/toolfold/audit"
	"github.com/toolfold/toolfold/config"
)

// TestAuditCaptureCode: with audit.capture_code a run's line keeps its
// code, tokenized as the model would see it; without, only the hash.
func TestAuditCaptureCode(t *testing.T) {
	const code = `local who = "alice@example.com"
print(#who)`
	for _, capture := range []bool{false, true} {
		file := filepath.Join(t.TempDir(), "audit.jsonl")
		aud, err := audit.Open(config.Audit{File: file, CaptureCode: capture}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { aud.Close() })
		p, _ := startProxyWith(t, policyConfig(t, &notebook{}), &Options{Audit: aud})
		if text, isErr := runLua(t, policyClient(t, p, nil, ""), code); isErr || !strings.Contains(text, "17") {
			t.Fatalf("run: %q (isError %v)", text, isErr)
		}
		entries, raw := readAudit(t, file)
		if len(entries) != 1 || entries[0].Kind != audit.KindRun || entries[0].CodeHash != audit.CodeHash(code) {
			t.Fatalf("audit %+v: want one run line with the code's hash", entries)
		}
		if strings.Contains(raw, "alice@example.com") {
			t.Errorf("the audit holds the raw address:\n%s", raw)
		}
		got := entries[0].Code
		switch {
		case !capture && got != "":
			t.Errorf("without capture_code the line keeps code %q", got)
		case capture && !strings.Contains(got, `local who = "[EMAIL_`) || capture && !strings.Contains(got, "print(#who)"):
			t.Errorf("with capture_code the line's code is %q, want the code with the address tokenized", got)
		}
	}
}
