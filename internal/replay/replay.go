// Package replay is a fixture upstream: it serves recorded tool schemas
// (a search corpus's tools/<server>.json files, as tools/list returned
// them) as real MCP servers, so benchmarks can put many real-looking
// servers behind toolfold without installing them. Every call answers a
// small deterministic text naming the server and tool; nothing else is
// simulated.
//
// Two ways to serve: one stdio server holding the tools of some corpus
// servers (ServeStdio, used by `toolfold-lab replay-server`), or one HTTP
// handler serving each corpus server at /<server>/mcp (Handler), so 124
// upstreams cost one process.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxFile bounds one corpus file read.
const maxFile = 8 << 20

// Server is one corpus server: its name and its tools as recorded.
type Server struct {
	Name  string
	Tools []*mcp.Tool
}

// List returns the files of dir/tools/*.json (or dir/*.json), sorted.
func List(dir string) ([]string, error) {
	root := filepath.Join(dir, "tools")
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		root = dir
	}
	names, err := filepath.Glob(filepath.Join(root, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("replay: no <server>.json files in %s; pass the search corpus directory (index/testdata/search-corpus in a toolfold clone)", dir)
	}
	slices.Sort(names)
	return names, nil
}

// Load reads every server of the corpus in dir (see List), sorted by
// name. Tools whose input schema is not an object schema are given
// {"type":"object"} (the MCP SDK refuses to serve others), output schemas
// that are not object schemas are dropped; fixed counts both.
func Load(dir string) (servers []Server, fixed int, err error) {
	names, err := List(dir)
	if err != nil {
		return nil, 0, err
	}
	return LoadFiles(names)
}

// LoadFiles reads the given corpus files (from List), as Load does.
func LoadFiles(names []string) (servers []Server, fixed int, err error) {
	for _, name := range names {
		st, err := os.Stat(name)
		if err != nil {
			return nil, 0, err
		}
		if st.Size() > maxFile {
			return nil, 0, fmt.Errorf("replay: %s is %d bytes, more than the %d a corpus file may have", name, st.Size(), maxFile)
		}
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, 0, err
		}
		var tools []*mcp.Tool
		if err := json.Unmarshal(data, &tools); err != nil {
			return nil, 0, fmt.Errorf("replay: %s: %w", name, err)
		}
		seen := make(map[string]bool)
		kept := tools[:0]
		for _, t := range tools {
			if t == nil || t.Name == "" || seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			if m, ok := t.InputSchema.(map[string]any); !ok || m["type"] != "object" {
				if !ok {
					m = map[string]any{}
				}
				m["type"] = "object"
				t.InputSchema = m
				fixed++
			}
			if m, ok := t.OutputSchema.(map[string]any); t.OutputSchema != nil && (!ok || m["type"] != "object") {
				t.OutputSchema = nil
				fixed++
			}
			kept = append(kept, t)
		}
		servers = append(servers, Server{Name: strings.TrimSuffix(filepath.Base(name), ".json"), Tools: kept})
	}
	return servers, fixed, nil
}

// Slice returns the k-th (0-based) of n near-equal consecutive parts of
// servers.
func Slice(servers []Server, k, n int) []Server {
	if n <= 0 || k < 0 || k >= n {
		return nil
	}
	lo, hi := len(servers)*k/n, len(servers)*(k+1)/n
	return servers[lo:hi]
}

// Pick returns the named servers, in the order given.
func Pick(servers []Server, names []string) ([]Server, error) {
	var out []Server
	for _, n := range names {
		i := slices.IndexFunc(servers, func(s Server) bool { return s.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("replay: no server %q in the corpus", n)
		}
		out = append(out, servers[i])
	}
	return out, nil
}

// NewMCPServer serves the tools of servers as one MCP server; a tool name
// that two servers share is served once (the first).
func NewMCPServer(name string, servers []Server) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "replay-" + name, Version: "1"}, nil)
	seen := make(map[string]bool)
	for _, srv := range servers {
		for _, t := range srv.Tools {
			if seen[t.Name] {
				continue
			}
			seen[t.Name] = true
			s.AddTool(t, answer(srv.Name, t))
		}
	}
	return s
}

// Answer is the text every replayed call returns, for checks.
func Answer(server, tool string, args json.RawMessage) string {
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	return fmt.Sprintf(`{"server":%q,"tool":%q,"args":%s,"ok":true}`, server, tool, args)
}

func answer(server string, t *mcp.Tool) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: Answer(server, t.Name, req.Params.Arguments)}}}
		if t.OutputSchema != nil {
			res.StructuredContent = map[string]any{}
		}
		return res, nil
	}
}

// ServeStdio serves servers as one MCP server on stdin/stdout until the
// client leaves or ctx ends.
func ServeStdio(ctx context.Context, servers []Server) error {
	if len(servers) == 0 {
		return errors.New("replay: no servers to serve")
	}
	err := NewMCPServer(servers[0].Name, servers).Run(ctx, &mcp.StdioTransport{})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// Handler serves each server at /<name>/mcp over streamable HTTP.
func Handler(servers []Server) http.Handler {
	mux := http.NewServeMux()
	for _, s := range servers {
		ms := NewMCPServer(s.Name, []Server{s})
		mux.Handle("/"+s.Name+"/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ms }, nil))
	}
	return mux
}
