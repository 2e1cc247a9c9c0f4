package proxy

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/config"
	"github.com/toolfold/toolfold/internal/testlog"
)

// testChattyEnv makes the test binary a stdio server with chattyServer.
const testChattyEnv = "TOOLFOLD_TEST_CHATTY"

// chattyServer's tool sends three log messages and three progress
// notifications, the last of each right before its result.
func chattyServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "chatty"}, nil)
	type in struct {
		Call string `json:"call"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "chatty", Description: "Logs while it works."},
		func(ctx context.Context, req *mcp.CallToolRequest, in in) (*mcp.CallToolResult, any, error) {
			for i := 1; i <= 3; i++ {
				_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Data: fmt.Sprintf("%s log %d", in.Call, i)})
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Call + " done"}}}, nil, nil
		})
	return s
}

func runChattyUpstream() {
	if err := chattyServer().Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Print(err)
	}
	os.Exit(0)
}

// TestNotificationsArriveBeforeTheirResult: the log and progress
// notifications an upstream sends during a call reach the client on that
// call's own stream, all of them, however soon the result follows. The
// client has no standalone SSE stream, so a notification the relay could no
// longer attribute to the call would be lost, and the test would wait for
// it in vain. Before noteOrder (package upstream's order.go) about one call in 15 lost its last
// log message.
func TestNotificationsArriveBeforeTheirResult(t *testing.T) {
	for _, tc := range []struct {
		name string
		up   func(t *testing.T) config.Upstream
	}{
		{"http", func(t *testing.T) config.Upstream { return httpUpstream(t, "chatty", chattyServer()) }},
		{"stdio", func(*testing.T) config.Upstream {
			up := stdioUpstream("chatty")
			up.Env = map[string]string{testChattyEnv: "1"}
			return up
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(tc.up(t))
			cfg.Expose.Mode = config.ExposePassthrough
			p := New(cfg, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			p.Start(ctx)
			p.WaitReady(ctx)
			t.Cleanup(p.Close)
			ts := httptest.NewServer(p.HTTPHandler(""))
			t.Cleanup(ts.Close)

			got := &clientLog{}
			c := mcp.NewClient(&mcp.Implementation{Name: "c"}, &mcp.ClientOptions{
				LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { got.add(fmt.Sprint(req.Params.Data)) },
				ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
					got.add(fmt.Sprintf("%v progress %v", req.Params.ProgressToken, req.Params.Progress))
				},
			})
			cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", DisableStandaloneSSE: true}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
				t.Fatal(err)
			}
			for i := range 40 {
				call := fmt.Sprintf("c%d", i)
				params := &mcp.CallToolParams{Name: "chatty", Arguments: map[string]any{"call": call}}
				params.SetProgressToken(call)
				res, err := cs.CallTool(ctx, params)
				if err != nil || res.IsError {
					t.Fatalf("call %s: %v %+v", call, err, res)
				}
				// The client's SDK may hand over the result before it has run
				// its notification handlers: wait for them, briefly.
				for _, want := range []string{call + " log 3", call + " progress 3"} {
					deadline := time.Now().Add(testlog.Bound(time.Minute))
					for !got.has(want) {
						if time.Now().After(deadline) {
							t.Fatalf("call %s: %q never reached the client; it got %q", call, want, got.got)
						}
						time.Sleep(5 * time.Millisecond)
					}
				}
			}
		})
	}
}
