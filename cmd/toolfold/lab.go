package main

import (
	"fmt"
	"io"
)

// labCommands are the lab's commands, which were toolfold's once and now
// live in their own binary, cmd/toolfold-lab: the product links none of
// the lab (TestProductLinksNoLab).
var labCommands = map[string]bool{"bench": true, "eval-search": true, "eval-pii": true, "__replay-server": true}

// cmdMovedToLab answers a lab command typed to toolfold: where it went,
// exitUsage.
func cmdMovedToLab(cmd string, stderr io.Writer) int {
	lab := cmd
	if cmd == "__replay-server" {
		lab = "replay-server"
	}
	fmt.Fprintf(stderr, "toolfold: %s is not part of toolfold anymore: it moved to the lab's own binary. "+
		"From a toolfold clone run:\n  go run ./cmd/toolfold-lab %s ...\n(docs/lab.md lists its flags)\n", cmd, lab)
	return exitUsage
}
