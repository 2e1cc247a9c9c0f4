// Package fsown is toolfold's one check that a file or directory is its
// own: owned by toolfold's user (or root, where the caller trusts root)
// and writable by no other user. Whatever can change what runs or what is
// allowed (skills, the sandbox binary and its directories, the persisted
// workspaces) is a trust root: whoever else could write it could put code
// or data into every session. Callers say what the file is and what to do;
// this package decides whether it is toolfold's.
package fsown

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Options say what else counts as toolfold's own. The zero value trusts
// only toolfold's user and no other writer.
type Options struct {
	// Root also trusts files owned by root (system binaries, a skill a
	// package installed).
	Root bool
	// Sticky lets others write a sticky directory (/tmp): they can add
	// files there but not replace another's.
	Sticky bool
}

// Error says why a file is not toolfold's own. Its text reads after the
// file's name: "belongs to uid 1001, not toolfold's user (uid 1000)".
type Error struct {
	// Owner is the file's owner when another user owns it; Writable is
	// false then.
	Owner uint32
	// Writable: others may write it (Mode says how).
	Writable bool
	Mode     fs.FileMode
	Root     bool // root was trusted too (for the text)
}

func (e *Error) Error() string {
	if e.Writable {
		return fmt.Sprintf("is writable by other users (mode %v)", e.Mode.Perm())
	}
	root := ""
	if e.Root {
		root = " or root"
	}
	return fmt.Sprintf("belongs to uid %d, not toolfold's user (uid %d)%s", e.Owner, Me(), root)
}

// Me is the uid whose files are toolfold's own: this process's effective
// uid.
func Me() int { return os.Geteuid() }

// Check returns nil when info (from Stat or Lstat) is toolfold's own under
// opts, else an Error saying why not (a *Error, not an error, so that a
// nil result is nil). Where the system does not report owners, only the
// mode is checked.
func Check(info fs.FileInfo, opts Options) *Error {
	if uid, ok := Owner(info); ok && int(uid) != Me() && !(opts.Root && uid == 0) {
		return &Error{Owner: uid, Root: opts.Root}
	}
	sticky := opts.Sticky && info.IsDir() && info.Mode()&fs.ModeSticky != 0
	if info.Mode().Perm()&0o022 != 0 && !sticky {
		return &Error{Writable: true, Mode: info.Mode()}
	}
	return nil
}

// Owner is the uid that owns info; ok is false where the system does not
// say.
func Owner(info fs.FileInfo) (uid uint32, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}

// CheckDir checks that dir, which the config key names
// ("skills.dir"), is a real directory (not a link) that is toolfold's own
// and that no one else may write. The error says what to do; a missing dir
// is an error wrapping fs.ErrNotExist.
func CheckDir(key, dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("%s %s is not a directory (a symlink or a file is there); give a directory toolfold may create", key, dir)
	}
	switch e := Check(info, Options{}); {
	case e == nil:
		return nil
	case e.Writable:
		return fmt.Errorf("%s %s %v; chmod go-w it, or use a directory of toolfold's own", key, dir, e)
	default:
		return fmt.Errorf("%s %s %v; use a directory of toolfold's own", key, dir, e)
	}
}
