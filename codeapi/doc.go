// Package codeapi writes the catalog as code on disk: the read-only
// servers/ and skills/ trees every run_script run sees beside its
// workspace, so that a model can browse when a search misses (ls servers/,
// read a server's README.md, read a tool's file) and import the functions
// in its script.
//
//	servers/
//	  README.md              every server: purpose, tool count, or why it is unavailable
//	  package.json           {"type": "commonjs"}: the .js files are CommonJS whatever the workspace says
//	  memory/
//	    README.md            one line per tool: signature and first sentence
//	    __init__.py          from servers.memory import create_entities
//	    index.js, index.d.ts import { create_entities } from "./servers/memory/index.js"
//	    init.lua             local memory = require("servers.memory")
//	    create_entities.py   a function with keyword parameters, a TypedDict of its input, docstring
//	    create_entities.js   a function with JSDoc types (and create_entities.d.ts)
//	    create_entities.lua  a function with an annotated comment block
//	skills/
//	  README.md, __init__.py (save, asave), package.json
//	  circle_area/           SKILL.md, main.py (the code), and the same three wrappers
//
// Every function calls the same bridge as tools.SERVER.TOOL: Python's
// through the module toolfold (call), JavaScript's through
// globalThis.__toolfold.call, Lua's through the global call; the sandbox's
// preludes provide them and find the trees (sandbox.Request.Tree).
// Folder and function names are the script identifiers search_tools shows
// (index.Hit.Ident); index.js also exports the camelCase spelling of each.
// Descriptions are the ones search_tools renders at full detail in each
// language, so a tool's file and its search result say the same.
//
// Write takes a Catalog (FromIndex builds one from the index) and writes
// a fresh directory; nothing is copied per run. The proxy writes one per
// catalog version in the background (per session where its personal data
// tokens make the texts per session: Options.Tokenize).
package codeapi
