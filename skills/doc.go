// Package skills keeps the scripts a model saves to call again by name:
// skills. A skill is a name, a one-line description, a language, code, and
// optionally a JSON Schema of its parameters and of its result. Every
// session of a proxy shares the same skills, and they outlive it.
//
// # On disk
//
// The file store (Files) keeps one folder per skill in the skills
// directory (config's skills.dir, by default .toolfold/skills beside the
// config), in the folder layout of agent skills as clients know them, so a
// person can read, edit, commit or write one by hand:
//
//	.toolfold/skills/
//	  circle_area/
//	    SKILL.md        front matter (name, description, language, parameters, result); body: notes for the model
//	    main.py         the code: main.lua, main.py or main.js by language
//	  .versions/circle_area/20261125T103400.123456789Z/   the folder as it was before an overwrite or a remove
//
//	---
//	name: circle_area
//	description: Area of a circle from its radius
//	language: python
//	parameters: {"type": "object", "properties": {"r": {"type": "number"}}, "required": ["r"]}
//	---
//	Returns a number; args.r must be positive.
//
// The code runs with its arguments as args (a Lua table, a Python dict, a
// JavaScript object); what it returns is the call's result. A folder
// without a language in SKILL.md takes it from its one main.* file.
//
// Writes are atomic: a new folder is written beside the others under a
// temporary name and renamed into place; the folder it replaces is moved
// into .versions first (the last MaxVersions are kept). Writers are
// serialized, across processes too (a lock file). The directory must be
// toolfold's own and writable by no one else: whoever can write it can put
// code in every session's scripts. So must each skill's folder and files:
// a symlink, or one owned by another user than toolfold's or root, or
// writable by others is left out of List (the error, which the proxy
// logs, says why) and refused by Get. Files are opened inside the opened
// folder without following links, so a swap after the check does not
// count.
//
// # Saving
//
// Save checks a skill before a Store keeps it: the name is an identifier
// every script language can write after tools.skills. (not a keyword, not
// one of the skills table's own methods) and collides with no other skill
// (overwriting takes Overwrite, and a name differing only in case is
// refused: folders on macOS would collide); description, code, notes and
// schemas are within their size caps; the code compiles in its language
// (SaveOptions.Compile, which the proxy runs in the sandbox: a syntax
// error reads "skill:LINE: message"); and nothing in it is refused by
// SaveOptions.Refuse (the proxy refuses a PII token of the saving session,
// which would mean nothing in another).
//
// The Store interface (List, Get, Save, Remove) is what the proxy and the
// CLI use; Files is the one implementation on one machine, and a shared
// store (Redis, for replicas) fits the same interface.
package skills
