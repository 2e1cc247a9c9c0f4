package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// LoadCorpus reads a corpus of tool schemas: tools/<server>.json files, each
// a JSON array of tools as an MCP tools/list returns them ({name, title,
// description, inputSchema, outputSchema, annotations}). dir is the corpus
// directory holding tools/, or the tools directory itself. Every server
// counts as available and has no description. Used by tests, benchmarks and
// the CLI's evaluation; the index itself does no I/O.
func LoadCorpus(dir string) ([]Tool, []ServerInfo, error) {
	root := filepath.Join(dir, "tools")
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		root = dir
	}
	return loadCorpusFS(os.DirFS(root))
}

func loadCorpusFS(fsys fs.FS) ([]Tool, []ServerInfo, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return nil, nil, errors.New("load corpus: no <server>.json files")
	}
	slices.Sort(names)
	var tools []Tool
	var servers []ServerInfo
	for _, name := range names {
		server := strings.TrimSuffix(path.Base(name), ".json")
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, nil, fmt.Errorf("load corpus: %w", err)
		}
		ts, err := decodeTools(server, data)
		if err != nil {
			return nil, nil, fmt.Errorf("load corpus: %s: %w", name, err)
		}
		tools = append(tools, ts...)
		servers = append(servers, ServerInfo{Name: server, Available: true})
	}
	return tools, servers, nil
}

// wireTool is a tool as MCP's tools/list spells it.
type wireTool struct {
	Name         string         `json:"name"`
	Title        string         `json:"title"`
	Description  string         `json:"description"`
	InputSchema  map[string]any `json:"inputSchema"`
	OutputSchema map[string]any `json:"outputSchema"`
	Annotations  *struct {
		Title           string `json:"title"`
		ReadOnlyHint    *bool  `json:"readOnlyHint"`
		DestructiveHint *bool  `json:"destructiveHint"`
		IdempotentHint  *bool  `json:"idempotentHint"`
		OpenWorldHint   *bool  `json:"openWorldHint"`
	} `json:"annotations"`
}

func decodeTools(server string, data []byte) ([]Tool, error) {
	var ws []wireTool
	if err := json.Unmarshal(data, &ws); err != nil {
		return nil, err
	}
	out := make([]Tool, 0, len(ws))
	for _, w := range ws {
		if w.Name == "" {
			return nil, errors.New("a tool has no name")
		}
		t := Tool{
			Server: server, Name: w.Name, Title: w.Title, Description: w.Description,
			InputSchema: w.InputSchema, OutputSchema: w.OutputSchema,
		}
		if a := w.Annotations; a != nil {
			if t.Title == "" {
				t.Title = a.Title
			}
			t.Annotations = Annotations{
				ReadOnly: a.ReadOnlyHint, Destructive: a.DestructiveHint,
				Idempotent: a.IdempotentHint, OpenWorld: a.OpenWorldHint,
			}
		}
		out = append(out, t)
	}
	return out, nil
}
