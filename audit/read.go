package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolfold/toolfold/internal/glob"
)

// Files returns the audit file and its rotated backups
// (NAME-2006-01-02T15-04-05.000.EXT beside it), oldest first: the order
// their lines were written in. Files that do not exist are left out.
func Files(file string) ([]string, error) {
	dir, base := filepath.Split(file)
	ext := filepath.Ext(base)
	prefix := strings.TrimSuffix(base, ext) + "-"
	ents, err := os.ReadDir(filepath.Clean(dir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("audit: %w", err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		stamp := strings.TrimSuffix(strings.TrimPrefix(n, prefix), ext)
		if e.Type().IsRegular() && strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ext) && isStamp(stamp) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	slices.Sort(out) // the stamps sort by time
	if _, err := os.Stat(file); err == nil {
		out = append(out, file)
	}
	return out, nil
}

func isStamp(s string) bool {
	_, err := time.Parse("2006-01-02T15-04-05.000", s)
	return err == nil
}

// Filter selects entries. The zero value selects all.
type Filter struct {
	Since   time.Time // entries at or after; zero: all
	Tool    string    // a glob over the qualified tool name (package internal/glob: * spans / and .); "": any (runs too)
	Session string    // exact session id; "": any
}

// Match reports whether e passes f.
func (f Filter) Match(e Entry) bool {
	if !f.Since.IsZero() && e.Time.Before(f.Since) {
		return false
	}
	if f.Session != "" && e.Session != f.Session {
		return false
	}
	if f.Tool != "" {
		return e.Tool != "" && glob.Match(f.Tool, e.Tool)
	}
	return true
}

// Read returns the entries of files (see Files) that pass f, in order.
// Lines that are not entries (a line cut by a crash) are skipped and
// counted in bad.
func Read(files []string, f Filter) (entries []Entry, bad int, err error) {
	for _, name := range files {
		fh, err := os.Open(name)
		if err != nil {
			return entries, bad, fmt.Errorf("audit: %w", err)
		}
		n, err := scan(fh, func(e Entry) {
			if f.Match(e) {
				entries = append(entries, e)
			}
		})
		fh.Close()
		bad += n
		if err != nil {
			return entries, bad, fmt.Errorf("audit: reading %s: %w", name, err)
		}
	}
	return entries, bad, nil
}

// scan calls fn with each entry of r, returning the count of bad lines.
func scan(r io.Reader, fn func(Entry)) (bad int, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var e Entry
		if json.Unmarshal(line, &e) != nil || e.Kind == "" {
			bad++
			continue
		}
		fn(e)
	}
	return bad, sc.Err()
}
