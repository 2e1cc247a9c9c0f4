package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// FollowOptions changes how Follow works. The zero value (or nil) is what
// `toolfold audit --follow` wants.
type FollowOptions struct {
	// Poll is how often Follow looks for new lines once it has read all
	// there were; 0 means 250ms.
	Poll time.Duration
	// Bad, if set, is called for each line that is not an entry.
	Bad func(line []byte)
}

// Follow calls fn with every entry of file's rotated backups and of file
// that passes f, in order, then with each entry appended to file as it is
// written, until ctx ends (then it returns nil). When the file is rotated
// (renamed to a backup and a new one created, as the audit does past its
// size) Follow reads the old file to its end and goes on in the new one;
// when it is truncated it starts again at the top. A missing file is
// waited for.
func Follow(ctx context.Context, file string, f Filter, fn func(Entry), opts *FollowOptions) error {
	if opts == nil {
		opts = &FollowOptions{}
	}
	t := &tail{file: file, f: f, fn: fn, bad: opts.Bad, poll: opts.Poll}
	if t.poll <= 0 {
		t.poll = 250 * time.Millisecond
	}
	files, err := Files(file)
	if err != nil {
		return err
	}
	for _, name := range files {
		if name == file {
			continue // followed below, from its top
		}
		if err := t.readAll(name); err != nil {
			return err
		}
	}
	defer t.close()
	for {
		if err := t.step(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(t.poll):
		}
	}
}

// tail is Follow's state: the file open now, and a line begun but not
// yet ended.
type tail struct {
	file string
	f    Filter
	fn   func(Entry)
	bad  func([]byte)
	poll time.Duration

	fh      *os.File
	partial []byte
}

// step reads what was appended since the last step, then switches to a
// new file if the old one was rotated away, or rereads a truncated one.
func (t *tail) step() error {
	if t.fh == nil {
		fh, err := os.Open(t.file)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // not written yet
		}
		if err != nil {
			return fmt.Errorf("audit: %w", err)
		}
		t.fh = fh
	}
	if err := t.drain(); err != nil {
		return err
	}
	cur, err := os.Stat(t.file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("audit: %w", err)
	}
	open, err := t.fh.Stat()
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	switch {
	case cur == nil: // renamed, its successor not created yet
	case !os.SameFile(cur, open): // rotated: the old file is read to its end
		if err := t.drain(); err != nil {
			return err
		}
		t.close()
		return t.step()
	default:
		if pos, _ := t.fh.Seek(0, io.SeekCurrent); cur.Size() < pos { // truncated
			t.partial = nil
			_, err = t.fh.Seek(0, io.SeekStart)
		}
	}
	return err
}

// drain reads the open file to its end, passing on each complete line.
func (t *tail) drain() error {
	buf := make([]byte, 64<<10)
	for {
		n, err := t.fh.Read(buf)
		t.lines(buf[:n])
		if errors.Is(err, io.EOF) || n == 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("audit: reading %s: %w", t.file, err)
		}
	}
}

// lines adds b to the line begun and passes on each line it ends.
func (t *tail) lines(b []byte) {
	t.partial = append(t.partial, b...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			return
		}
		t.line(t.partial[:i])
		t.partial = t.partial[i+1:]
	}
}

func (t *tail) line(line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	var e Entry
	if json.Unmarshal(line, &e) != nil || e.Kind == "" {
		if t.bad != nil {
			t.bad(line)
		}
		return
	}
	if t.f.Match(e) {
		t.fn(e)
	}
}

// readAll passes on every line of a file that no longer grows (a backup).
func (t *tail) readAll(name string) error {
	fh, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed by rotation meanwhile
	}
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer fh.Close()
	_, err = scan(fh, func(e Entry) {
		if t.f.Match(e) {
			t.fn(e)
		}
	})
	return err
}

func (t *tail) close() {
	if t.fh != nil {
		t.fh.Close()
		t.fh = nil
	}
	t.partial = nil
}
