package fsown

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fakeInfo is a FileInfo with a chosen owner and mode.
type fakeInfo struct {
	mode fs.FileMode
	uid  uint32
}

func (f fakeInfo) Name() string       { return "f" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return &syscall.Stat_t{Uid: f.uid} }

func TestCheck(t *testing.T) {
	me := uint32(Me())
	other := me + 1
	if me == 0 {
		other = 65534
	}
	for _, c := range []struct {
		name string
		info fakeInfo
		opts Options
		want string // "" for toolfold's own
	}{
		{"mine", fakeInfo{0o644, me}, Options{}, ""},
		{"another user's", fakeInfo{0o644, other}, Options{}, "belongs to uid"},
		{"root's, root not trusted", fakeInfo{0o755, 0}, Options{}, ternary(me == 0, "", "belongs to uid 0")},
		{"root's, root trusted", fakeInfo{0o755, 0}, Options{Root: true}, ""},
		{"group may write", fakeInfo{0o664, me}, Options{}, "is writable by other users (mode -rw-rw-r--)"},
		{"others may write", fakeInfo{0o646, me}, Options{}, "writable by other users"},
		{"sticky dir, not allowed", fakeInfo{fs.ModeDir | fs.ModeSticky | 0o777, me}, Options{}, "writable by other users"},
		{"sticky dir, allowed", fakeInfo{fs.ModeDir | fs.ModeSticky | 0o777, me}, Options{Sticky: true}, ""},
		{"open dir, sticky allowed", fakeInfo{fs.ModeDir | 0o777, me}, Options{Sticky: true}, "writable by other users"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := Check(c.info, c.opts)
			switch {
			case c.want == "" && e != nil:
				t.Errorf("Check = %q, want toolfold's own", e.Error())
			case c.want != "" && (e == nil || !strings.Contains(e.Error(), c.want)):
				t.Errorf("Check = %v, want %q", e, c.want)
			}
		})
	}
}

func TestCheckRealFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if e := Check(info, Options{}); e != nil {
		t.Errorf("a file just written: %v", e)
	}
	os.Chmod(path, 0o666)
	info, _ = os.Lstat(path)
	if e := Check(info, Options{}); e == nil || !e.Writable {
		t.Errorf("a file others may write: %v, want writable", e)
	}
}

func ternary(c bool, a, b string) string {
	if c {
		return a
	}
	return b
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	own := filepath.Join(base, "own")
	open := filepath.Join(base, "open")
	link := filepath.Join(base, "link")
	os.Mkdir(own, 0o700)
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	os.Symlink(own, link)
	if err := CheckDir("skills.dir", own); err != nil {
		t.Errorf("own dir: %v", err)
	}
	for dir, want := range map[string]string{
		open: "skills.dir " + open + " is writable by other users (mode -rwxrwxrwx); chmod go-w it",
		link: "is not a directory (a symlink or a file is there)",
	} {
		if err := CheckDir("skills.dir", dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckDir(%s) = %v, want %q", dir, err, want)
		}
	}
	if err := CheckDir("skills.dir", filepath.Join(base, "none")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: %v, want fs.ErrNotExist", err)
	}
}
