package upstream

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
)

// testSlowDiscoverEnv makes the test binary a go-sdk server (2026-07-28
// capable) that starts reading its input only after the duration it names,
// as a server still starting (npx, a loaded machine) does.
const testSlowDiscoverEnv = "TOOLFOLD_TEST_SLOW_DISCOVER"

func runSlowDiscoverUpstream(delay string) {
	d, _ := time.ParseDuration(delay)
	s := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ping", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
		})
	time.Sleep(d) // starting: the probe waits in the pipe
	_ = s.Run(context.Background(), &mcp.StdioTransport{})
	os.Exit(0)
}

// TestSlowDiscoverConnects: a server that answers server/discover after
// discoverTimeout took the probe as its initialize and refused the SDK's
// fallback initialize as a duplicate, and each reconnect met the same slow
// answer. It now connects in the first attempt. Which protocol it speaks
// depends on what the server reads first once it starts: the probe
// (answered late: the patient retry connects on 2026-07-28) or the probe's
// cancellation (the probe is dropped, and the fallback initialize
// connects on the older protocol); both are a working connection.
func TestSlowDiscoverConnects(t *testing.T) {
	setVar(t, &discoverTimeout, 200*time.Millisecond)
	up := config.Upstream{Name: "slow", Transport: "stdio", Command: os.Args[0],
		Env: map[string]string{testSlowDiscoverEnv: "1s"}, Cwd: os.TempDir(),
		ConnectTimeout: testlog.Bound(time.Minute), CallTimeout: testlog.Bound(time.Minute)}
	p := startPool(t, &Options{MinBackoff: time.Hour}, up)
	st := p.Status()[0]
	if st.State != StateReady || st.Restarts != 0 {
		t.Fatalf("status = %s, %d restarts (%s); want ready at the first connect", st.State, st.Restarts, st.Err)
	}
	t.Logf("connected on protocol %s", st.Protocol)
	res, err := p.CallTool(context.Background(), "slow", &mcp.CallToolParams{Name: "ping"})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %v", res, err)
	}
}
