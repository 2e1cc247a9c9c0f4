package proxy

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP upstream when this variable is
// set (see TestMain), so the pool is tested against real processes.
const testUpstreamEnv = "TOOLFOLD_TEST_UPSTREAM"

type addIn struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}
type addOut struct {
	Sum float64 `json:"sum"`
}
type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo back"`
}
type sleepIn struct {
	Seconds float64 `json:"seconds"`
}

// newTestServer is the upstream used by the proxy tests: a few tools with
// distinct behaviours.
func newTestServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-upstream", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers and return their sum."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo-text", Description: "Echo the given text back unchanged."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fails with a message."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("disk quota exceeded on volume 7")
		})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep", Description: "Sleep for some seconds."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in sleepIn) (*mcp.CallToolResult, any, error) {
			select {
			case <-time.After(time.Duration(in.Seconds * float64(time.Second))):
			case <-ctx.Done():
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "Terminate the server process."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crashing on request")
			os.Exit(3)
			return nil, nil, nil
		})
	return s
}

func runTestUpstream() {
	if err := newTestServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
	os.Exit(0)
}
