package proxy

import (
	"context"
	"encoding/json"
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

// testLegacyEnv makes the test binary a minimal 2024-11-05 server written
// by hand, as older SDKs behave: it answers initialize, tools/list and
// tools/call, silently drops every other request (server/discover among
// them), and appends each method it receives to the file the variable names.
const testLegacyEnv = "TOOLFOLD_TEST_LEGACY"

// testLegacyPagesEnv makes the legacy server's tools/list paginate without
// end: "endless" (a new cursor every page) or "repeat" (the same cursor).
const testLegacyPagesEnv = "TOOLFOLD_TEST_LEGACY_PAGES"

func runLegacyUpstream(logPath string) {
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	pages := os.Getenv(testLegacyPagesEnv)
	for page := 0; ; {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := dec.Decode(&msg); err != nil {
			os.Exit(0)
		}
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(f, msg.Method)
			f.Close()
		}
		var result any
		switch msg.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2024-11-05", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "legacy", "version": "0.1"}}
		case "tools/list":
			page++
			name := "ping_legacy"
			if page > 1 {
				name = fmt.Sprintf("ping_legacy_%d", page)
			}
			list := map[string]any{"tools": []any{map[string]any{"name": name, "description": "Answer pong.",
				"inputSchema": map[string]any{"type": "object"}}}}
			switch pages {
			case "endless":
				list["nextCursor"] = fmt.Sprint("page", page)
			case "repeat":
				list["nextCursor"] = "same"
			}
			result = list
		case "tools/call":
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "pong"}}}
		default:
			continue // dropped, notifications and unknown requests alike
		}
		_ = enc.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
	}
}
