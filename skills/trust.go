package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/toolfold/toolfold/internal/fsown"
)

// A skill's folder and files decide what runs in every session, so Files
// reads only what is toolfold's own: not a symlink, owned by toolfold's
// user or root, writable by no one else. The folder is opened once and
// its files are opened inside it without following links, so swapping a
// checked path for a link afterwards changes nothing.

// ownedFolder is a skill folder opened after its checks.
type ownedFolder struct {
	root *os.Root
	dir  string // for messages
}

// openOwnedFolder opens dir, refusing a symlink and a folder another user
// owns or can write.
func openOwnedFolder(dir string) (*ownedFolder, error) {
	before, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("skill folder %s: %w", dir, err)
	}
	if before.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("skill folder %s is a symlink, which toolfold does not follow: "+
			"a skill decides what runs in every session; copy the skill in, or save it again", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("skill folder %s: %w", dir, err)
	}
	opened, err := root.Stat(".")
	if err == nil && !os.SameFile(before, opened) {
		err = fmt.Errorf("skill folder %s changed while it was opened; try again", dir)
	}
	if err == nil {
		err = trusted(opened, dir, "folder")
	}
	if err != nil {
		root.Close()
		return nil, err
	}
	return &ownedFolder{root: root, dir: dir}, nil
}

// Close releases the folder.
func (o *ownedFolder) Close() error { return o.root.Close() }

func (o *ownedFolder) read(name string, max int64) ([]byte, error) {
	file := filepath.Join(o.dir, name)
	linkErr := fmt.Errorf("skill file %s is a symlink, which toolfold does not follow; put the file itself there", file)
	if info, err := o.root.Lstat(name); err != nil {
		return nil, missing(file, err)
	} else if info.Mode()&fs.ModeSymlink != 0 {
		return nil, linkErr
	}
	// O_NOFOLLOW: a file swapped for a link since Lstat is refused too.
	f, err := o.root.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if isLoop(err) {
			return nil, linkErr
		}
		return nil, fmt.Errorf("skill file %s: %w", file, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("skill file %s: %w", file, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("skill file %s is not a regular file (%v); put the file itself there", file, info.Mode().Type())
	}
	if err := trusted(info, file, "file"); err != nil {
		return nil, err
	}
	return readCapped(f, file, max)
}

func (o *ownedFolder) has(name string) bool {
	_, err := o.root.Lstat(name)
	return err == nil
}

// isLoop reports whether err is O_NOFOLLOW's refusal of a symlink.
func isLoop(err error) bool {
	var errno syscall.Errno
	return errors.As(err, &errno) && errno == syscall.ELOOP
}

// trusted checks that info, of the skill folder or file at path, is owned
// by toolfold's user or root and writable by no other user.
func trusted(info fs.FileInfo, path, what string) error {
	switch e := fsown.Check(info, fsown.Options{Root: true}); {
	case e == nil:
		return nil
	case e.Writable:
		return fmt.Errorf("skill %s %s %v; chmod go-w it", what, path, e)
	default:
		return fmt.Errorf("skill %s %s %v: another user could change what it runs; copy the skill in, or save it again", what, path, e)
	}
}
