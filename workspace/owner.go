package workspace

import (
	"context"
	"os"
)

// Owner is one client session's part of the workspaces and the run
// slots: its workspace directory (made on first use), the lock of a
// persisted one, the runs in it, the runs answered at done still ending
// there, and its slots held and waited for. The proxy's Session holds
// one; it ends in Set.Release when the session ends.
type Owner struct {
	ctx   context.Context // the session's lifetime
	stdio bool            // the stdio session: its workspace may be persisted
	// tails are the session's runs answered at done whose processes are
	// still ending: Release waits for them, and only them.
	tails tails
	// slots is its holdings and queue; guarded by Slots.mu (slots.go).
	slots slotUser

	// Guarded by Set.mu: made there on the first run, released there when
	// the session ends.
	dir  string
	lock *os.File // a persisted workspace's lock
	runs *runs    // the runs in its workspace
}

// NewOwner is the part of a session whose lifetime is ctx. stdio is the
// stdio session, toolfold's one client, whose workspace is kept under
// sandbox.workspace_dir when set.
func NewOwner(ctx context.Context, stdio bool) *Owner {
	return &Owner{ctx: ctx, stdio: stdio}
}
