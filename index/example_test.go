package index_test

import (
	"fmt"

	"github.com/toolfold/toolfold/index"
)

func Example() {
	tools := []index.Tool{
		{
			Server: "filesystem", Name: "read_text_file",
			Description: "Read the complete contents of a file as text. Handles various encodings.",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"path": map[string]any{"type": "string"},
					"head": map[string]any{"type": "number", "description": "First N lines only"},
				},
				"required": []any{"path"},
			},
		},
		{Server: "github", Name: "create_issue", Description: "Create a new issue in a repository."},
	}
	servers := []index.ServerInfo{
		{Name: "filesystem", Available: true},
		{Name: "github", Available: false, Error: "connection refused"},
	}
	ix := index.New(tools, servers)

	hits := ix.Search("open a ticket in a repo", index.SearchOptions{Limit: 1})
	fmt.Print(ix.Render("open a ticket in a repo", hits, index.DetailName, "lua"))

	hits = ix.Search("show me the text of a file", index.SearchOptions{Limit: 1})
	fmt.Print(ix.Render("show me the text of a file", hits, index.DetailSummary, "lua"))
	fmt.Print(ix.Render("show me the text of a file", hits, index.DetailFull, "lua"))

	h, _ := ix.Resolve("filesystem.read_text_file")
	fmt.Println(h.Ident)
	fmt.Println(ix.Suggest("filesystem.read_txt_file", 1))
	// Output:
	// github.create_issue (unavailable: connection refused)
	// tools.filesystem.read_text_file{path: string, head?: number} -- Read the complete contents of a file as text.
	// filesystem.read_text_file
	// Read the complete contents of a file as text. Handles various encodings.
	// Parameters:
	//   path (string, required)
	//   head (number, optional): First N lines only
	// Example: local r = tools.filesystem.read_text_file{path = "README.md"}
	// filesystem.read_text_file
	// [filesystem.read_text_file]
}
