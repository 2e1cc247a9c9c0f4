package upstream

import (
	"encoding/json"
	"fmt"
	"os"
)

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
