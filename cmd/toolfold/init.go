package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// starterConfig is what `toolfold init` writes: one upstream that needs
// only Node.js, the sample's policy and audit, and the rest commented out.
const starterConfig = `# toolfold config, written by ` + "`toolfold init`" + `. Check it with
#   toolfold check -c FILE
# and serve it with ` + "`toolfold serve -c FILE`" + ` (your MCP client's one entry). Every key is
# described in proxy.yaml in the toolfold repository.

# upstreams: the MCP servers behind toolfold, by name. Scripts call their tools
# as tools.<name>.<tool>; search_tools shows <name>.<tool>.
upstreams:
  memory:
    description: a knowledge graph of entities and relations that persists
    command: npx                  # run over stdio; needs Node.js
    args: ["-y", "@modelcontextprotocol/server-memory@2026.8.31"]
    env:
      MEMORY_FILE_PATH: ${TOOLFOLD_MEMORY_FILE:-/tmp/toolfold-memory.jsonl}
    connect_timeout: 2m           # the first start downloads the package

  # A server on your machine, started by toolfold:
  # files:
  #   command: npx
  #   args: ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "."]
  #
  # A remote server over streamable HTTP:
  # remote:
  #   url: https://mcp.example.com/mcp
  #   headers: {Authorization: "Bearer ${REMOTE_TOKEN}"}
  #   # oauth: {}                 # instead of headers; then ` + "`toolfold login remote`" + `

# sandbox: limits on each run_script run (these are the defaults).
# sandbox:
#   timeout: 30s
#   memory: 512MiB
#   output: 64KiB
#   max_tool_calls: 200

# policy: which tool calls run, ask a person first, or are refused. The first
# rule that matches decides; a call no rule matches gets the default.
policy:
  default: allow                  # allow | ask | deny
  approval_timeout: 2m            # how long an ask waits for the person
  rules:
    # Ask before any tool its server declares destructive.
    - annotations: {destructiveHint: true}
      action: ask
    # - match: memory.delete_*    # a glob over server.tool
    #   action: deny

# audit: a JSON line for every upstream call and run; ` + "`toolfold audit`" + ` prints
# it. Remove this section to record nothing.
audit:
  file: .toolfold/audit.jsonl     # relative to this file's directory
  max_size_mb: 100
  max_backups: 10
`

// cmdInit runs `toolfold init [FILE]`: it writes starterConfig to FILE
// (default proxy.yaml), never over an existing file.
func cmdInit(args []string, stdout, stderr io.Writer) int {
	if len(args) > 1 || (len(args) == 1 && len(args[0]) > 0 && args[0][0] == '-') {
		return fail(stderr, "usage: toolfold init [FILE] (default proxy.yaml)")
	}
	path := "proxy.yaml"
	if len(args) == 1 {
		path = args[0]
	}
	if err := writeNew(path, []byte(starterConfig)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fail(stderr, "%s already exists: toolfold init does not overwrite it; name another file (toolfold init FILE) or remove it", path)
		}
		return fail(stderr, "init: %v", err)
	}
	fmt.Fprintf(stdout, "wrote %s: one upstream (memory, via npx), ask before destructive tools, an audit log\n", path)
	fmt.Fprintf(stdout, "next: edit its upstreams, then `toolfold check -c %s`\n", path)
	return exitOK
}

// writeNew writes data to a file that must not exist yet.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
