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
			"failures raise ToolError; top-level return and await work; concurrent: asyncio.gather(tools.server.tool.acall(...), ...).")
	}
	if slices.Contains(langs, "javascript") {
		b.WriteString(` language "javascript": const r = await tools.server.tool({key: value}) or await call("server.tool", {...}); ` +
			"failures throw ToolError; top-level return and await work; Promise.all runs calls concurrently.")
	}
	return b.String()
}
