// Package house holds no code, only tests of rules that span the module
// and that no one package can check of itself: every package directory is
// on the package map of docs/development.md (and nothing gone is), and
// the things that have one owner (the atomic file write, the ownership
// check) are not written a second time elsewhere.
package house
