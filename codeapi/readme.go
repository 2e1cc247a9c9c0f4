package codeapi

import (
	"fmt"
	"strings"
)

// serversReadme is servers/README.md: every server, its purpose and tool
// count, and how to use the tree.
func serversReadme(servers []Server) string {
	var b strings.Builder
	b.WriteString("# servers\n\nThe tools behind this proxy as code, read-only: one folder per server, one file per tool and language " +
		"(NAME.py, NAME.js with NAME.d.ts, NAME.lua). Read SERVER/README.md for a server's tools, a tool's file for its parameters. " +
		"search_tools(query) finds a tool faster.\n\n" +
		"Python: `from servers.memory import create_entities`. JavaScript: `import { create_entities } from \"./servers/memory/index.js\"`. " +
		"Lua: `local memory = require(\"servers.memory\")`. Each calls the same tool as tools.memory.create_entities.\n\n")
	for _, s := range servers {
		fmt.Fprintf(&b, "- %s/ (%s", s.Ident, plural(len(s.Tools), "tool"))
		if s.Unavailable != "" {
			b.WriteString(", unavailable: " + oneLine(s.Unavailable))
		}
		b.WriteString(")")
		if s.Ident != s.Name {
			b.WriteString(" " + s.Name)
		}
		if p := oneLine(s.Purpose); p != "" {
			b.WriteString(": " + p)
		}
		b.WriteByte('\n')
	}
	if len(servers) == 0 {
		b.WriteString("(no servers configured)\n")
	}
	return b.String()
}

// serverReadme is SERVER/README.md: the server's tools, one line each.
func serverReadme(s *Server, lang string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", s.Name)
	if p := oneLine(s.Purpose); p != "" {
		b.WriteString(p + ". ")
	}
	fmt.Fprintf(&b, "%s. ", plural(len(s.Tools), "tool"))
	if s.Unavailable != "" {
		fmt.Fprintf(&b, "\n\nUnavailable: %s. Calls to its tools fail until it is back (toolfold reconnects it by itself).", oneLine(s.Unavailable))
	}
	if len(s.Tools) > 0 {
		b.WriteString("Each tool has NAME.py, NAME.js (+ NAME.d.ts) and NAME.lua here; __init__.py, index.js and init.lua export them all.\n\n")
	}
	b.WriteByte('\n')
	prefix := "tools." + s.Ident + "."
	for _, t := range s.Tools {
		line := firstLine(t.Summary[lang])
		line = strings.TrimPrefix(line, prefix)
		b.WriteString("- " + line + "\n")
	}
	return b.String()
}

// skillsReadme is skills/README.md.
func skillsReadme(list []Skill) string {
	var b strings.Builder
	b.WriteString("# skills\n\nScripts saved with skills.save, one folder each (SKILL.md, the code, and wrappers): " +
		"Python `from skills.NAME import NAME`, JavaScript `import { NAME } from \"./skills/NAME/index.js\"`, " +
		"Lua `require(\"skills.NAME\").NAME{...}`; the same as tools.skills.NAME.\n\n")
	for _, s := range list {
		fmt.Fprintf(&b, "- %s/ (%s): %s\n", s.Name, s.Language, oneLine(s.Description))
	}
	if len(list) == 0 {
		b.WriteString("(none saved yet)\n")
	}
	return b.String()
}

// skillMD is a skill's SKILL.md: front matter and notes.
func skillMD(s *Skill) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: %s\nlanguage: %s\n", s.Name, oneLine(s.Description), s.Language)
	if len(s.Parameters) > 0 {
		fmt.Fprintf(&b, "parameters: %s\n", oneLine(string(s.Parameters)))
	}
	if len(s.Result) > 0 {
		fmt.Fprintf(&b, "result: %s\n", oneLine(string(s.Result)))
	}
	b.WriteString("---\n")
	if s.Notes != "" {
		b.WriteString(s.Notes + "\n")
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
