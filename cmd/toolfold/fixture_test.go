package main

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/toolfold/toolfold/internal/replay"
	"github.com/toolfold/toolfold/sandbox"
)

// replayEnv makes the test binary a replay upstream (package replay)
// serving the corpus server named by its arguments: CORPUS SERVER. The
// product binary has no replay server (it is the lab's); its tests link
// one only into the test binary.
const replayEnv = "TOOLFOLD_TEST_REPLAY"

// TestMain makes the test binary a sandbox child when the Lua runner
// re-executes it, and a replay upstream when a test's config starts it.
func TestMain(m *testing.M) {
	if sandbox.IsChild() {
		sandbox.ChildMain()
	}
	if os.Getenv(replayEnv) == "1" {
		if err := serveReplay(os.Args[1:]); err != nil {
			fmt.Fprintln(os.Stderr, "replay fixture:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serveReplay serves args[1], a server of the corpus in args[0], on stdio.
func serveReplay(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("want CORPUS SERVER, got %q", args)
	}
	files, err := replay.List(args[0])
	if err != nil {
		return err
	}
	servers, _, err := replay.LoadFiles(files)
	if err != nil {
		return err
	}
	if servers, err = replay.Pick(servers, args[1:]); err != nil {
		return err
	}
	return replay.ServeStdio(context.Background(), servers)
}
