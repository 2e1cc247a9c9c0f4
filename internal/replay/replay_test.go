package replay

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolfold/toolfold/internal/testlog"
)

const corpus = "../../index/testdata/search-corpus"

func TestLoadCorpus(t *testing.T) {
	servers, fixed, err := Load(corpus)
	if err != nil {
		t.Fatal(err)
	}
	tools := 0
	for _, s := range servers {
		tools += len(s.Tools)
	}
	// The corpus's SOURCES.md: 124 servers, 1,815 tools.
	if len(servers) != 124 || tools != 1815 {
		t.Errorf("got %d servers, %d tools; want 124, 1815", len(servers), tools)
	}
	t.Logf("%d schemas made servable", fixed)
	if _, _, err := Load(t.TempDir()); err == nil {
		t.Error("an empty directory loaded without error")
	}
}

func TestSliceCoversEveryServerOnce(t *testing.T) {
	servers := make([]Server, 124)
	for i := range servers {
		servers[i].Name = string(rune('a'+i%26)) + string(rune('0'+i/26))
	}
	for _, n := range []int{1, 10, 20, 124} {
		seen := make(map[string]int)
		for k := range n {
			part := Slice(servers, k, n)
			if len(part) < 124/n || len(part) > 124/n+1 {
				t.Errorf("slice %d/%d has %d servers", k, n, len(part))
			}
			for _, s := range part {
				seen[s.Name]++
			}
		}
		if len(seen) != 124 {
			t.Errorf("%d slices cover %d servers", n, len(seen))
		}
		for name, c := range seen {
			if c != 1 {
				t.Errorf("%d slices: %s in %d", n, name, c)
			}
		}
	}
	if Slice(servers, 3, 3) != nil || Slice(servers, 0, 0) != nil {
		t.Error("out-of-range slices are not empty")
	}
}

// TestHandlerServesRecordedTools lists a server over HTTP with the go-sdk
// client and gets its recorded tools back, then calls one.
func TestHandlerServesRecordedTools(t *testing.T) {
	files, err := List(corpus)
	if err != nil {
		t.Fatal(err)
	}
	servers, _, err := LoadFiles(files[:3])
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(Handler(servers))
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), testlog.Bound(2*time.Minute))
	defer cancel()
	s := servers[1]
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/" + s.Name + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(s.Tools) {
		t.Fatalf("listed %d tools, want %d", len(res.Tools), len(s.Tools))
	}
	// The SDK lists tools sorted by name; each is served as recorded.
	served := make(map[string]string)
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool)
		served[tool.Name] = string(b)
	}
	for _, tool := range s.Tools {
		if want, _ := json.Marshal(tool); served[tool.Name] != string(want) {
			t.Errorf("tool served as\n%s\nrecorded as\n%s", served[tool.Name], want)
		}
	}
	var name string
	for _, tool := range s.Tools {
		if tool.OutputSchema == nil {
			name = tool.Name
			break
		}
	}
	if name == "" {
		t.Skip("no tool without an output schema to call")
	}
	call, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"x": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if text := call.Content[0].(*mcp.TextContent).Text; text != Answer(s.Name, name, json.RawMessage(`{"x":1}`)) {
		t.Errorf("call answered %s", text)
	}
}
