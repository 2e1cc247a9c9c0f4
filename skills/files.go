package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolfold/toolfold/internal/fsown"
)

// Store keeps skills. Implementations are safe for concurrent use.
type Store interface {
	// List returns every skill, sorted by name. Skills that cannot be
	// read are left out and named in the error (the others are still
	// returned with it).
	List(ctx context.Context) ([]*Skill, error)
	// Get returns one skill, or an error wrapping ErrNotFound.
	Get(ctx context.Context, name string) (*Skill, error)
	// Save keeps s (which Save, the function, has checked). A name that
	// exists is an error wrapping ErrExists unless overwrite; the skill it
	// replaces is kept as a previous version.
	Save(ctx context.Context, s *Skill, overwrite bool) error
	// Remove deletes a skill (keeping it as a previous version), or
	// returns an error wrapping ErrNotFound.
	Remove(ctx context.Context, name string) error
}

// MaxVersions is how many previous versions of a skill Files keeps.
const MaxVersions = 10

// versionsDir holds the previous versions, by skill name.
const versionsDir = ".versions"

// Files is the Store of one directory: a folder per skill (see doc.go).
type Files struct {
	dir string
	mu  sync.Mutex // writers in this process; the lock file serializes processes
	now func() time.Time
}

var _ Store = (*Files)(nil)

// NewFiles returns the store of dir. Nothing is created until a skill is
// saved.
func NewFiles(dir string) *Files {
	return &Files{dir: filepath.Clean(dir), now: time.Now}
}

// Dir is the store's directory.
func (f *Files) Dir() string { return f.dir }

// open checks the directory; exists is false when it is not there yet.
func (f *Files) open() (exists bool, err error) {
	if err := ownDir(f.dir); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// List implements Store.
func (f *Files) List(ctx context.Context) ([]*Skill, error) {
	if ok, err := f.open(); !ok || err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return nil, fmt.Errorf("list skills: %w", err)
	}
	var out []*Skill
	var errs []error
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if strings.HasPrefix(e.Name(), ".") || !isDir(filepath.Join(f.dir, e.Name())) {
			continue
		}
		s, err := f.read(e.Name())
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, s)
	}
	return out, errors.Join(errs...)
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// Get implements Store.
func (f *Files) Get(ctx context.Context, name string) (*Skill, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if NameProblem(name) != "" {
		return nil, fmt.Errorf("skills.%s: %w", name, ErrNotFound)
	}
	ok, err := f.open()
	if err != nil {
		return nil, err
	}
	if !ok || !isDir(filepath.Join(f.dir, name)) {
		return nil, fmt.Errorf("skills.%s: %w", name, ErrNotFound)
	}
	return f.read(name)
}

// read reads the folder of name, refusing one that is not toolfold's own
// (see trust.go), and checks that it names itself.
func (f *Files) read(name string) (*Skill, error) {
	dir := filepath.Join(f.dir, name)
	fd, err := openOwnedFolder(dir)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	s, err := readFolder(fd, dir)
	if err != nil {
		return nil, err
	}
	if s.Name != name {
		return nil, fmt.Errorf("%s: name %q differs from its folder's %q; make them the same",
			filepath.Join(f.dir, name, SkillFile), s.Name, name)
	}
	return s, nil
}

// Save implements Store.
func (f *Files) Save(ctx context.Context, s *Skill, overwrite bool) error {
	if msg := NameProblem(s.Name); msg != "" {
		return errors.New(msg)
	}
	unlock, err := f.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	dst := filepath.Join(f.dir, s.Name)
	exists, err := f.taken(s.Name)
	if err != nil {
		return err
	}
	if exists && !overwrite {
		return fmt.Errorf("skills.%s: %w; save with overwrite to replace it (the old one is kept in %s), or choose another name",
			s.Name, ErrExists, filepath.Join(f.dir, versionsDir))
	}
	tmp, err := os.MkdirTemp(f.dir, ".tmp-"+s.Name+"-")
	if err != nil {
		return fmt.Errorf("save skill %s: %w", s.Name, err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; removed on failure
	if err := writeFile(filepath.Join(tmp, SkillFile), s.markdown()); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(tmp, CodeFile(s.Language)), []byte(s.Code)); err != nil {
		return err
	}
	var old string
	if exists {
		if old, err = f.keepVersion(s.Name); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		if old != "" {
			os.Rename(old, dst) // put the previous one back
		}
		return fmt.Errorf("save skill %s: %w", s.Name, err)
	}
	syncDir(f.dir)
	return nil
}

// taken reports whether name exists, refusing a folder whose name differs
// only in case (one folder on a case-insensitive file system).
func (f *Files) taken(name string) (bool, error) {
	entries, err := os.ReadDir(f.dir)
	if err != nil {
		return false, fmt.Errorf("list skills: %w", err)
	}
	for _, e := range entries {
		switch {
		case e.Name() == name:
			if !isDir(filepath.Join(f.dir, name)) {
				return false, fmt.Errorf("%s is not a skill folder; move it away or choose another name", filepath.Join(f.dir, name))
			}
			return true, nil
		case strings.EqualFold(e.Name(), name):
			return false, fmt.Errorf("skill name %q differs only in case from the existing %q; use that name (with overwrite) or another", name, e.Name())
		}
	}
	return false, nil
}

// Remove implements Store.
func (f *Files) Remove(ctx context.Context, name string) error {
	if NameProblem(name) != "" {
		return fmt.Errorf("skills.%s: %w", name, ErrNotFound)
	}
	unlock, err := f.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()
	if !isDir(filepath.Join(f.dir, name)) {
		return fmt.Errorf("skills.%s: %w", name, ErrNotFound)
	}
	_, err = f.keepVersion(name)
	syncDir(f.dir)
	return err
}

// keepVersion moves the folder of name into .versions/NAME/STAMP, keeps the
// newest MaxVersions there, and returns where it went.
func (f *Files) keepVersion(name string) (string, error) {
	vdir := filepath.Join(f.dir, versionsDir, name)
	if err := os.MkdirAll(vdir, 0o700); err != nil {
		return "", fmt.Errorf("keep the previous version of skill %s: %w", name, err)
	}
	to := filepath.Join(vdir, f.now().UTC().Format("20060102T150405.000000000Z"))
	if err := os.Rename(filepath.Join(f.dir, name), to); err != nil {
		return "", fmt.Errorf("keep the previous version of skill %s: %w", name, err)
	}
	if entries, err := os.ReadDir(vdir); err == nil && len(entries) > MaxVersions {
		names := make([]string, 0, len(entries))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		slices.Sort(names)
		for _, n := range names[:len(names)-MaxVersions] {
			os.RemoveAll(filepath.Join(vdir, n))
		}
	}
	return to, nil
}

// lock creates the directory if needed, checks it, and takes the writers'
// lock: this process's mutex, then an flock on DIR/.lock.
func (f *Files) lock(ctx context.Context) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the skills directory: %w (make it writable, or set skills.dir)", err)
	}
	if err := ownDir(f.dir); err != nil {
		return nil, err
	}
	f.mu.Lock()
	lf, err := os.OpenFile(filepath.Join(f.dir, ".lock"), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		f.mu.Unlock()
		return nil, fmt.Errorf("lock the skills directory: %w (if %s is a link, move it away)", err, filepath.Join(f.dir, ".lock"))
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX); err != nil {
		lf.Close()
		f.mu.Unlock()
		return nil, fmt.Errorf("lock the skills directory: %w", err)
	}
	return func() {
		lf.Close() // releases the flock
		f.mu.Unlock()
	}, nil
}

// writeFile writes data to a new file and syncs it.
func writeFile(name string, data []byte) error {
	fh, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("save skill: %w", err)
	}
	_, err = fh.Write(data)
	if err == nil {
		err = fh.Sync()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("save skill: write %s: %w", name, err)
	}
	return nil
}

// syncDir makes renames in dir durable, where the system allows it.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// ownDir checks that dir is a real directory of toolfold's user that no
// one else can write: whoever can write it can put code into every
// session's scripts. A missing dir is an error wrapping fs.ErrNotExist.
func ownDir(dir string) error { return fsown.CheckDir("skills.dir", dir) }
