// Package workspace holds what toolfold keeps on disk and in turn for the
// scripts each client session runs: its workspace, and its share of the
// run slots.
//
// A workspace is a session's own directory: the working directory of each
// of its runs, keeping what they write (state, checkpoints, exported files)
// from one run to the next until the session ends. It is made on the
// session's first run (or when its first runs' children are started
// early) and removed when the session ends, whatever ended it.
//
//   - Size: each workspace is bounded by sandbox.workspace_size, and all of
//     them together by sandbox.workspace_budget. Where toolfold may mount
//     (Linux, as root) a temporary workspace is a tmpfs of its size, so a
//     write past it fails at once (mount.go); elsewhere, and always for
//     the budget, a run's workspace is measured every 500 ms while it runs
//     and once after, and a run that took it past is stopped and the
//     workspace emptied.
//   - Persistence: with sandbox.workspace_dir, the stdio session's
//     workspace is DIR/stdio, kept across toolfold's starts and locked
//     while used; HTTP sessions keep temporary ones (persist.go).
//   - Hostile contents: a workspace holds what scripts wrote. It is
//     measured and removed without following a symlink.
//
// The run slots (Slots) bound the scripts running at once across all
// sessions and share them fairly, round-robin between the sessions
// waiting, so that one session's queue cannot hold every slot.
//
// The proxy gives each client session one Owner (NewOwner) and passes it
// to the Set (the workspaces) and the Slots; a run outside any session
// passes nil. This package never imports the proxy.
package workspace
