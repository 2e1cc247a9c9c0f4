package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLiveProgressTSClient: a client on the TypeScript SDK (the MCP
// Inspector's) calls run_script with a progress token on a run that prints
// three lines a while apart; each line reaches it as a progress
// notification before the result, with personal data as tokens as in the
// result, and the result is the whole output as without progress.
func TestLiveProgressTSClient(t *testing.T) {
	t.Parallel()
	entry := needNPM(t, "inspector")
	i := strings.Index(entry, "/node_modules/")
	if i < 0 {
		t.Fatalf("the inspector's entry %s is not in a node_modules", entry)
	}
	sdk := filepath.Join(entry[:i], "node_modules", "@modelcontextprotocol", "sdk")
	cfg := writeConfig(t, configYAML(map[string]upstream{"memory": npmUpstream(t, "memory")}))
	code := `import time
for i in range(1, 4):
    print(f"step {i} mail ada.lovelace@example.com", flush=True)
    time.sleep(0.3)
return "done"`
	ctx := testCtx(t, 3*time.Minute)
	cmd := exec.CommandContext(ctx, setup.node, "testdata/progress_client.mjs", sdk, needToolfold(t), cfg, "python", code)
	cmd.WaitDelay = exitGrace
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("TS client: %v\nstdout:\n%s\nstderr:\n%s", err, out, &stderr)
	}
	var got struct {
		Progress []struct {
			Message     string
			AfterResult bool
		}
		Text    string
		IsError bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("TS client output: %v\n%s", err, out)
	}
	if got.IsError || !strings.Contains(got.Text, "step 3") || !strings.Contains(got.Text, "done") {
		t.Fatalf("result = %q (isError %v), want the whole output and the return value", got.Text, got.IsError)
	}
	var lines []string
	for _, p := range got.Progress {
		if p.AfterResult {
			t.Errorf("progress %q arrived after the result", p.Message)
		}
		lines = append(lines, p.Message)
	}
	all := strings.Join(lines, "\n")
	for _, want := range []string{"step 1", "step 2", "step 3"} {
		if !strings.Contains(all, want) {
			t.Errorf("no progress notification carried %q; got %q", want, lines)
		}
	}
	for _, where := range []string{all, got.Text, stderr.String()} {
		if strings.Contains(where, "ada.lovelace@example.com") {
			t.Errorf("a raw e-mail address reached the client or its log:\n%s", where)
		}
	}
}
