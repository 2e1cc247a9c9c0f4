// Package atomicfile is toolfold's one way to replace a file atomically: the
// new content goes into a temporary file in the same directory, is synced,
// and is renamed over the old file, so a reader (or a crash) sees the old
// file or the new one, never half of one. Every file toolfold writes for a
// later start (the OAuth token, the file store, the catalog cache, search
// usage, a client's config) is written through it.
package atomicfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, atomically. The file gets mode (as given,
// whatever the umask); its directory must exist.
func Write(path string, data []byte, mode fs.FileMode) error {
	return WriteFunc(path, mode, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// WriteFunc replaces path, atomically, with what write writes. The file
// gets mode; its directory must exist. When write fails, path is left as
// it was and no temporary file remains.
func WriteFunc(path string, mode fs.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*") // created 0600: nothing readable before the chmod
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
		}
	}()
	werr := write(tmp)
	if werr == nil {
		werr = tmp.Chmod(mode)
	}
	if werr == nil {
		werr = tmp.Sync()
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes the rename durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
