package bench

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sdkHopCase times the passthrough row's call through a proxy built from
// the go-sdk alone, in front of its own everything server: a server whose
// echo calls the upstream's echo, nothing else. Beside the direct and
// passthrough rows it shows what the extra MCP hop costs any go-sdk proxy,
// and so how much of the passthrough row is toolfold's own.
func (e *env) sdkHopCase(ctx context.Context, n int) (c latencyCase, stop func(), err error) {
	var ev upstream
	for _, u := range e.sample {
		if u.Name == "everything" {
			ev = u
		}
	}
	up, err := dial(ctx, ev)
	if err != nil {
		return c, nil, fmt.Errorf("go-sdk hop: %w", err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "sdk-hop", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return up.cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: req.Params.Arguments})
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		up.Close()
		return c, nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "toolfold-bench", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		up.Close()
		return c, nil, err
	}
	cl := &client{name: "sdk-hop", cs: cs}
	stop = func() { cl.Close(); ss.Close(); up.Close() }
	return latencyCase{name: "go-sdk hop alone: client → go-sdk server → echo (in-process, no toolfold)", n: n, call: func(ctx context.Context) error {
		_, err := cl.call(ctx, "echo", echoArgs)
		return err
	}}, stop, nil
}
