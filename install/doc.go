// Package install puts toolfold into an MCP client's configuration file and
// takes it out again.
//
// Install moves the servers of a client's file (its "mcpServers", or VS
// Code's "servers") into toolfold's own file, a client-format JSON file
// that `toolfold serve -c FILE` reads as is, and leaves one entry in the
// client's file that runs toolfold with that file. toolfold's file also
// carries proxy.yaml's sample policy and an audit log (DefaultSettings),
// as JSON keys beside "mcpServers" that a person can edit. Every other
// key of the
// client's file is kept, a timestamped backup is written beside it first,
// and installing twice changes nothing the second time. Which servers came
// from which client is recorded in installs.json beside toolfold's file,
// so that Uninstall puts exactly those back.
//
// The package does no I/O of its own beyond the files it is given: where a
// client keeps its file (Client.Path) is computed from a home directory, a
// GOOS and an environment lookup that the caller passes in.
package install
