package proxy

import (
	"slices"
	"strings"
)

// languageHelp is the part of run_script's description for the languages
// besides Lua that this proxy serves: how a script calls a tool in each.
// It must match what the sandbox preludes accept (sandbox/doc.go).
func languageHelp(langs []string) string {
	var b strings.Builder
	if slices.Contains(langs, "python") {
		b.WriteString(` language "python": r = tools.server.tool(key=value) or call("server.tool", {...}); ` +
			"a failure raises ToolError; `return value` and top-level await work; " +
			"await tools.server.tool.acall(...) with asyncio.gather runs calls concurrently; search_tools(query).")
	}
	if slices.Contains(langs, "javascript") {
		b.WriteString(` language "javascript": const r = await tools.server.tool({key: value}) or await call("server.tool", {...}); ` +
			"a failure throws ToolError; `return value` and top-level await work; Promise.all runs calls concurrently; await searchTools(query).")
	}
	return b.String()
}
