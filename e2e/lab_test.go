package e2e

import (
	"context"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// labSymbolRE matches the lab's code in a binary's symbol table: its own
// packages, and the evaluation code that index and rewrite hold for it
// (the linker keeps a function only when something calls it).
var labSymbolRE = regexp.MustCompile(`toolfold/(cmd/toolfold-lab|internal/bench|internal/replay)\.|` +
	`toolfold/index\.(Evaluate|LoadQueries|LoadCorpus)\b|toolfold/rewrite\.(Evaluate|EvaluateTypes|EvaluateWords|ReadCases)\b`)

// TestProductBinaryLinksNoLab: the built toolfold holds none of the lab
// (bench, eval-search, eval-pii, the replay server: cmd/toolfold-lab),
// and its lab commands point at the lab and exit 2.
func TestProductBinaryLinksNoLab(t *testing.T) {
	bin := needToolfold(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "tool", "nm", bin).Output()
	if err != nil {
		t.Fatalf("go tool nm %s: %v", bin, err)
	}
	var found []string
	for _, line := range strings.Split(string(out), "\n") {
		if labSymbolRE.MatchString(line) {
			found = append(found, strings.TrimSpace(line))
		}
	}
	if len(found) > 0 {
		t.Errorf("toolfold links lab code (it belongs in cmd/toolfold-lab):\n%s", strings.Join(found[:min(len(found), 20)], "\n"))
	}
	for _, cmd := range []string{"bench", "eval-search", "eval-pii"} {
		c, _ := toolfoldCmd(t, ctx, cmd)
		var stderr strings.Builder
		c.Stderr = &stderr
		err := c.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(stderr.String(), "go run ./cmd/toolfold-lab "+cmd) {
			t.Errorf("toolfold %s: %v, stderr %q; want exit 2 pointing at go run ./cmd/toolfold-lab %s", cmd, err, stderr.String(), cmd)
		}
	}
}
