// Command toolfold-sandbox is the sandbox's own binary: toolfold starts
// each run's sandbox init, and Lua's child, from it when it sits beside
// the toolfold binary and is the same build (`go install ./cmd/...`
// installs both). It links the sandbox package alone, so it starts in a
// third of the CPU time the whole toolfold binary takes. It is not run by
// hand.
package main

import (
	"fmt"
	"os"

	"github.com/toolfold/toolfold/sandbox"
)

func main() {
	if sandbox.IsChild() {
		sandbox.ChildMain() // never returns
	}
	if len(os.Args) == 2 && os.Args[1] == sandbox.IdentityArg {
		fmt.Println(sandbox.Identity())
		return
	}
	fmt.Fprintln(os.Stderr, "toolfold-sandbox: this is the sandbox's own binary, started by toolfold for each run; run toolfold instead (toolfold serve -c proxy.yaml)")
	os.Exit(2)
}
